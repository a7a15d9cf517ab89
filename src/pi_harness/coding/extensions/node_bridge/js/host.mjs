// The sidecar's entry point: loads Pi extensions (TypeScript or JavaScript) and answers the
// Python host's requests over the JSON-lines channel on stdin/stdout.
import { register } from "node:module";
import { pathToFileURL } from "node:url";
import { format } from "node:util";
import { listen, send, settle } from "./channel.mjs";
import { createApi, createContext } from "./api.mjs";
import { applySnapshot } from "./state.mjs";

// stdout is the channel: everything an extension prints goes to stderr instead.
for (const name of ["log", "info", "debug", "warn", "error", "trace"]) {
  console[name] = (...args) => process.stderr.write(`${format(...args)}\n`);
}

register("./hooks.mjs", import.meta.url);

const extensions = new Map(); // ext id -> {id, path, api}
const inFlight = new Map(); // request id -> AbortController

function errorOf(error) {
  if (error instanceof Error) return { error: error.message || error.name, stack: error.stack };
  return { error: String(error) };
}

function reply(id, value, extra = {}) {
  send({ t: "res", id, ok: true, value: value === undefined ? null : value, ...extra });
}

function fail(id, error) {
  send({ t: "res", id, ok: false, ...errorOf(error) });
}

async function load(message) {
  const ext = { id: message.ext, path: message.path };
  ext.api = createApi(ext);
  extensions.set(ext.id, ext);
  const module = await import(pathToFileURL(message.path).href);
  const factory = module.default ?? module.extension;
  if (typeof factory !== "function") {
    throw new Error(`Extension does not export a valid factory function: ${message.path}`);
  }
  await factory(ext.api.pi);
}

function toolUpdate(id) {
  return (partial) => send({ t: "update", id, value: partial });
}

async function handle(message) {
  const ext = extensions.get(message.ext);
  if (!ext) throw new Error(`unknown extension ${message.ext}`);
  const controller = new AbortController();
  inFlight.set(message.id, controller);
  const ctx = createContext(ext, message.id, controller.signal);
  try {
    switch (message.t) {
      case "event": {
        const handler = ext.api.handlers.get(message.hid);
        const before = JSON.stringify(message.event);
        const value = await handler(message.event, ctx);
        const after = JSON.stringify(message.event);
        // In-place changes to the event (before_agent_start, tool_call input) go back too.
        reply(message.id, value, after !== before ? { event: message.event } : {});
        return;
      }
      case "tool": {
        const tool = ext.api.tools.get(message.name);
        const value = await tool.execute(message.toolCallId, message.params, controller.signal, toolUpdate(message.id), ctx);
        reply(message.id, value);
        return;
      }
      case "command": {
        const command = ext.api.commands.get(message.name);
        reply(message.id, await command.handler(message.args ?? "", ctx));
        return;
      }
      case "shortcut": {
        const shortcut = ext.api.shortcuts.get(message.key);
        reply(message.id, await shortcut.handler(ctx));
        return;
      }
      case "completions": {
        const command = ext.api.commands.get(message.name);
        const value = command?.getArgumentCompletions ? await command.getArgumentCompletions(message.prefix ?? "") : null;
        reply(message.id, value);
        return;
      }
      default:
        throw new Error(`unknown request ${message.t}`);
    }
  } finally {
    inFlight.delete(message.id);
  }
}

listen((message) => {
  if (message.ctxState) applySnapshot(message.ctxState);
  switch (message.t) {
    case "res":
      settle(message);
      return;
    case "abort":
      inFlight.get(message.id)?.abort();
      return;
    case "state":
      return;
    case "load":
      load(message).then(
        () => reply(message.id, null),
        (error) => fail(message.id, error),
      );
      return;
    default:
      handle(message).catch((error) => fail(message.id, error));
  }
});

process.on("unhandledRejection", (error) => {
  process.stderr.write(`pi node bridge: unhandled rejection: ${error?.stack ?? error}\n`);
});
process.on("uncaughtException", (error) => {
  process.stderr.write(`pi node bridge: uncaught exception: ${error?.stack ?? error}\n`);
});

send({ t: "ready", version: process.version });
