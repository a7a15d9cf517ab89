// The sandbox side of codemode (our own code). It never calls into Python: the binding refuses
// host calls while a time limit is set, so everything goes through two queues the worker drains
// between VM entries (`__pi.drain()`), and tool results come back through `__pi.settle()`.
(function () {
  "use strict";
  const MAX_CHARS = 16777216;
  const MAX_ITEMS = 100000;
  const stringify = JSON.stringify;
  const outbox = [];
  const requests = [];
  const waiting = new Map();
  const writes = { set: {}, delete: [] };
  const store = Object.assign(Object.create(null), globalThis.__pi_init.store);
  const names = globalThis.__pi_init.tools;
  let nextId = 1;
  let items = 0;
  let chars = 0;
  const state = { done: false, ok: false, exited: false, value: undefined, error: null };
  const EXIT = { exit: true };

  function account(size) {
    items += 1;
    chars += size;
    if (items > MAX_ITEMS) throw new RangeError(`Output limit: more than ${MAX_ITEMS} text(), image() and console calls`);
    if (chars > MAX_CHARS) throw new RangeError(`Output limit: more than ${MAX_CHARS} characters of output`);
  }
  function asText(value) {
    if (typeof value === "string") return value;
    const json = stringify(value);
    return json === undefined ? String(value) : json;
  }
  function request(op, payload) {
    const id = nextId++;
    let json;
    try {
      json = stringify(payload === undefined ? null : payload);
    } catch (e) {
      return Promise.reject(new TypeError(`Arguments are not JSON: ${e && e.message}`));
    }
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      requests.push({ id, op, payload: json });
    });
  }
  const tools = {};
  for (const [id, name] of names) {
    tools[id] = (args) => request("call", { name, args: args === undefined ? {} : args });
  }
  Object.freeze(tools);
  const consoleLine = (...args) => {
    const line = args.map((a) => (typeof a === "string" ? a : asText(a))).join(" ");
    account(line.length);
    outbox.push({ type: "text", text: line, console: true });
  };
  const sandboxConsole = Object.freeze({ log: consoleLine, info: consoleLine, warn: consoleLine, error: consoleLine, debug: consoleLine });
  function text(value) {
    const t = asText(value);
    account(t.length);
    outbox.push({ type: "text", text: t });
  }
  function image(value) {
    let mime, data;
    if (typeof value === "string" || (value && typeof value.image_url === "string")) {
      const url = typeof value === "string" ? value : value.image_url;
      const m = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s.exec(url);
      if (!m) throw new TypeError("image() expects a base64 data: URL of a PNG, JPEG, GIF or WebP image, or an image block");
      mime = m[1];
      data = m[2];
    } else if (value && value.type === "image" && typeof value.data === "string" && typeof value.mimeType === "string") {
      mime = value.mimeType;
      data = value.data;
      if (!/^image\/(png|jpeg|gif|webp)$/.test(mime)) throw new TypeError(`image(): unsupported image type ${mime}`);
    } else {
      throw new TypeError("image() expects a base64 data: URL, an { image_url } object or an image block");
    }
    account(data.length);
    outbox.push({ type: "image", data, mimeType: mime });
  }
  function exit() {
    state.exited = true;
    throw EXIT;
  }
  function storeValue(key, value) {
    if (typeof key !== "string") throw new TypeError("store() keys are strings");
    if (value === undefined) {
      delete store[key];
      delete writes.set[key];
      if (!writes.delete.includes(key)) writes.delete.push(key);
      return;
    }
    const json = stringify(value);
    if (json === undefined) throw new TypeError("store() values are JSON values");
    if (json.length > 262144) throw new RangeError("store(): one value may have at most 262144 characters of JSON");
    let total = json.length;
    for (const k of Object.keys(store)) if (k !== key) total += stringify(store[k]).length;
    if (total > 1048576) throw new RangeError("store(): all values together may have at most 1048576 characters of JSON");
    store[key] = JSON.parse(json);
    writes.set[key] = store[key];
    writes.delete = writes.delete.filter((k) => k !== key);
  }
  function load(key) {
    const value = store[key];
    return value === undefined ? undefined : JSON.parse(stringify(value));
  }
  function describeError(e) {
    if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack ? `${e.name}: ${e.message}\n${e.stack}` : null };
    return { name: "Error", message: asText(e), stack: null };
  }
  const hidden = (value) => ({ value, writable: false, enumerable: false, configurable: false });
  Object.defineProperties(globalThis, {
    tools: hidden(tools),
    text: hidden(text),
    image: hidden(image),
    console: hidden(sandboxConsole),
    exit: hidden(exit),
    store: hidden(storeValue),
    load: hidden(load),
    ALL_TOOLS: hidden(Object.freeze(globalThis.__pi_init.catalog.map((t) => Object.freeze({ name: t.name, description: t.description })))),
    searchTools: hidden((query, options) => request("searchTools", { query: String(query), options: options || {} })),
    describeTool: hidden((name) => request("describeTool", { name: String(name) })),
    describeNamespace: hidden((name) => request("describeNamespace", { name: String(name) })),
  });
  const pi = {
    run(body) {
      body().then(
        (value) => {
          state.done = true;
          state.ok = true;
          state.value = value === undefined ? undefined : asText(value);
        },
        (e) => {
          state.done = true;
          if (e === EXIT || state.exited) {
            state.ok = true;
            return;
          }
          state.ok = false;
          state.error = describeError(e);
        },
      );
    },
    drain() {
      const report = {
        out: outbox.splice(0),
        requests: requests.splice(0),
        waiting: waiting.size,
        done: state.done || state.exited,
        ok: state.exited ? true : state.ok,
        value: state.exited ? undefined : state.value,
        error: state.exited ? null : state.error,
        writes,
      };
      return stringify(report);
    },
    settle(id, ok, json) {
      const entry = waiting.get(id);
      if (!entry) return;
      waiting.delete(id);
      if (ok) entry.resolve(json === "" ? undefined : JSON.parse(json));
      else entry.reject(new Error(json));
    },
  };
  delete globalThis.__pi_init;
  Object.defineProperty(globalThis, "__pi", hidden(Object.freeze(pi)));
})();
