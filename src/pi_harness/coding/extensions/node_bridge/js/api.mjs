// Pi's extension API (`pi`) and context (`ctx`) for one extension, over the channel.
// Registrations go to the host as `reg` messages; actions as calls; synchronous getters read
// the session snapshot (state.mjs).
import { spawn } from "node:child_process";
import { call, notify, send } from "./channel.mjs";
import { sessionManager, state } from "./state.mjs";
import { noticeOnce } from "./notice.mjs";
import { BorderedLoader } from "./shims/pi-coding-agent.mjs";
import { plainTheme } from "./shims/theme.mjs";

const sharedBus = new Map(); // pi.events: shared by every extension in this sidecar

const events = {
  on(name, handler) {
    if (!sharedBus.has(name)) sharedBus.set(name, new Set());
    sharedBus.get(name).add(handler);
    return () => sharedBus.get(name)?.delete(handler);
  },
  emit(name, data) {
    for (const handler of sharedBus.get(name) ?? []) {
      try {
        handler(data);
      } catch (error) {
        process.stderr.write(`pi.events handler for ${name} failed: ${error?.message ?? error}\n`);
      }
    }
  },
};

function schemaOf(value) {
  // typebox schemas are JSON Schema objects with symbol-keyed extras; JSON drops those.
  return value === undefined ? { type: "object", properties: {} } : JSON.parse(JSON.stringify(value));
}

function runProgram(command, args = [], options = {}) {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let killed = false;
    let child;
    try {
      child = spawn(command, args, { cwd: options.cwd ?? state.cwd, stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      resolve({ stdout: "", stderr: String(error?.message ?? error), code: 1, killed: false });
      return;
    }
    const kill = () => {
      if (child.exitCode !== null) return;
      killed = true;
      child.kill("SIGTERM");
      setTimeout(() => child.exitCode === null && child.kill("SIGKILL"), 5000).unref();
    };
    const timer = options.timeout ? setTimeout(kill, options.timeout) : undefined;
    options.signal?.addEventListener("abort", kill, { once: true });
    if (options.signal?.aborted) kill();
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      resolve({ stdout, stderr: stderr || String(error.message), code: 1, killed });
    });
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ stdout, stderr, code: code ?? 1, killed });
    });
  });
}

export function createApi(ext) {
  let handlerCount = 0;
  const handlers = new Map(); // hid -> function
  const tools = new Map();
  const commands = new Map();
  const shortcuts = new Map();
  const reg = (kind, data) => send({ t: "reg", ext: ext.id, kind, ...data });
  const tell = (method, ...args) => notify(ext.id, null, method, args);
  const ask = (method, ...args) => call(ext.id, null, method, args);

  const pi = {
    events,
    on(event, handler) {
      const hid = ++handlerCount;
      handlers.set(hid, handler);
      reg("handler", { event, hid });
    },
    registerTool(tool) {
      tools.set(tool.name, tool);
      reg("tool", {
        name: tool.name,
        label: tool.label,
        description: tool.description ?? "",
        parameters: schemaOf(tool.parameters),
        promptSnippet: tool.promptSnippet,
        promptGuidelines: tool.promptGuidelines,
        executionMode: tool.executionMode,
        exposure: tool.exposure,
      });
    },
    registerCommand(name, options) {
      commands.set(name, options);
      reg("command", { name, description: options?.description });
    },
    registerShortcut(key, options) {
      shortcuts.set(String(key), options);
      reg("shortcut", { key: String(key), description: options?.description });
    },
    registerFlag(name, options = {}) {
      reg("flag", { name, type: options.type ?? "boolean", default: options.default, description: options.description });
    },
    getFlag(name) {
      return state.flags[String(name).replace(/^-+/, "")];
    },
    registerMessageRenderer() {},
    registerEntryRenderer() {},
    registerProvider(name, config) {
      if (config && Object.values(config).some((v) => typeof v === "function")) {
        noticeOnce("provider-functions", `Provider "${name}": its functions (custom streaming, OAuth) are not bridged; the rest of its configuration applies.`);
      }
      reg("provider", { name, config: JSON.parse(JSON.stringify(config ?? {})) });
    },
    unregisterProvider(name) {
      reg("unregisterProvider", { name });
    },
    registerVirtualModel() {
      noticeOnce("virtual-model", "Virtual models (route functions) are not bridged to Node extensions.");
    },
    sendMessage(message, options = {}) {
      return ask("sendMessage", message, options);
    },
    sendUserMessage(content, options = {}) {
      return ask("sendUserMessage", content, options);
    },
    appendEntry(customType, data) {
      tell("appendEntry", customType, data);
    },
    setSessionName(name) {
      state.sessionName = name;
      tell("setSessionName", name);
    },
    getSessionName: () => state.sessionName,
    setLabel(entryId, label) {
      tell("setLabel", entryId, label);
    },
    getActiveTools: () => state.activeTools.slice(),
    getAllTools: () => state.allTools.slice(),
    setActiveTools(names) {
      state.activeTools = [...names];
      tell("setActiveTools", names);
    },
    getCommands: () => state.commands.slice(),
    setModel(model) {
      return ask("setModel", model);
    },
    getThinkingLevel: () => state.thinkingLevel,
    setThinkingLevel(level) {
      state.thinkingLevel = level;
      tell("setThinkingLevel", level);
    },
    exec: (command, args, options) => runProgram(command, args, options),
  };
  return { pi, handlers, tools, commands, shortcuts };
}

function theme() {
  return plainTheme;
}

/** ctx for one request from the host (`ctxId` is that request's id, for dialogs and actions). */
export function createContext(ext, ctxId, signal) {
  const ask = (method, args, callSignal) => call(ext.id, ctxId, method, args, callSignal);
  const tell = (method, ...args) => notify(ext.id, ctxId, method, args);
  // A dialog closed by its signal answers like a dismissed one (undefined, or false for confirm).
  const dialog = (method, [first, second, opts], signal, dismissed) =>
    ask(method, [first, second, { timeout: opts.timeout }], signal).then(
      (value) => value ?? dismissed,
      (error) => {
        if (signal?.aborted) return dismissed;
        throw error;
      },
    );
  const unsupported = (name) => () =>
    noticeOnce(`ui.${name}`, `ctx.ui.${name} (a pi-tui component) is not bridged to Node extensions; plain rendering is used.`);
  const ui = {
    select: (title, options, opts = {}) => dialog("ui.select", [title, options, opts], opts.signal, undefined),
    confirm: (title, message, opts = {}) => dialog("ui.confirm", [title, message ?? "", opts], opts.signal, false),
    input: (title, placeholder, opts = {}) => dialog("ui.input", [title, placeholder, opts], opts.signal, undefined),
    editor: (title, prefill) => ask("ui.editor", [title, prefill]),
    notify: (message, type = "info") => tell("ui.notify", String(message), type),
    setStatus: (key, text) => tell("ui.setStatus", key, text ?? null),
    setWidget: (key, content, options = {}) => tell("ui.setWidget", key, widgetLines(content), options.placement ?? "aboveEditor"),
    setWorkingMessage: (text) => tell("ui.setWorkingMessage", text ?? null),
    setTitle: (title) => tell("ui.setTitle", title),
    setEditorText: (text) => {
      state.editorText = text;
      tell("ui.setEditorText", text);
    },
    getEditorText: () => state.editorText,
    pasteToEditor: (text) => tell("ui.pasteToEditor", text),
    custom: (factory) => customComponent(factory, unsupported("custom")),
    setFooter: unsupported("setFooter"),
    setHeader: unsupported("setHeader"),
    setEditorComponent: unsupported("setEditorComponent"),
    setWorkingIndicator: () => {},
    setWorkingVisible: () => {},
    setHiddenThinkingLabel: () => {},
    addAutocompleteProvider: () => {},
    onTerminalInput: () => () => {},
    getToolsExpanded: () => false,
    setToolsExpanded: () => {},
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: () => ({ success: false, error: "UI not available" }),
    get theme() {
      return theme();
    },
  };
  const models = {
    find: (provider, id) => state.models.find((m) => m.provider === provider && m.id === id),
    getAll: () => state.models.slice(),
    getAvailable: () => state.models.slice(),
    hasConfiguredAuth: () => true,
    getApiKeyAndHeaders: (model) => ask("models.getApiKeyAndHeaders", [model]),
    getApiKey: (model) => ask("models.getApiKey", [model]),
    complete: (model, context, options = {}) => {
      const { signal, ...rest } = options;
      return ask("models.complete", [model, context, rest], signal);
    },
  };
  return {
    ui,
    get hasUI() {
      return state.hasUI;
    },
    get cwd() {
      return state.cwd;
    },
    get mode() {
      return state.mode;
    },
    get model() {
      return state.model ?? undefined;
    },
    get thinkingLevel() {
      return state.thinkingLevel;
    },
    signal,
    sessionManager,
    modelRegistry: models,
    isIdle: () => state.isIdle,
    isProjectTrusted: () => true,
    hasPendingMessages: () => state.hasPendingMessages,
    getContextUsage: () => state.contextUsage ?? undefined,
    getSystemPrompt: () => state.systemPrompt,
    abort: () => tell("abort"),
    shutdown: () => tell("shutdown"),
    compact: (options = {}) => tell("compact", options.customInstructions ?? null),
    waitForIdle: () => ask("waitForIdle", []),
    newSession: (options = {}) => ask("newSession", [options.parentSession ?? null]),
    fork: (entryId) => ask("fork", [entryId]),
    navigateTree: (targetId, options = {}) => ask("navigateTree", [targetId, options]),
    switchSession: (path) => ask("switchSession", [path]),
    reload: () => ask("reload", []),
  };
}

// ctx.ui.custom: a component showing progress while the extension works (a BorderedLoader
// that calls done() when its work ends) runs, and custom() resolves with what it passed to
// done(); any other component would wait for keys the bridge never sends, so it is not shown
// and custom() resolves with undefined at once (with a one-time notice).
function customComponent(factory, notice) {
  return new Promise((resolve) => {
    let finished = false;
    const done = (value) => {
      if (!finished) {
        finished = true;
        resolve(value);
      }
    };
    let component;
    try {
      component = factory({ requestRender() {} }, plainTheme, { matches: () => false }, done);
    } catch {
      component = undefined;
    }
    Promise.resolve(component).then((value) => {
      if (!(value instanceof BorderedLoader) && !finished) {
        notice();
        value?.dispose?.();
        done(undefined);
      }
    });
  });
}

function widgetLines(content) {
  if (content === undefined || content === null) return null;
  if (Array.isArray(content)) return content.map(String);
  if (typeof content === "function") {
    try {
      const component = content({ requestRender() {} }, plainTheme);
      if (component && typeof component.render === "function") return component.render(80);
    } catch {}
  }
  noticeOnce("widget", "A pi-tui widget component is not bridged; its plain rendering is shown where possible.");
  return null;
}
