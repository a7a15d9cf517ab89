// The JSON-lines channel to the Python host: one JSON object per line on stdin/stdout.
// Extension output must never reach stdout, so console output is sent to stderr (host.mjs).
import { createInterface } from "node:readline";

const out = process.stdout;
let nextId = 1;
const pending = new Map(); // our calls to the host: id -> {resolve, reject}

export function send(message) {
  out.write(`${JSON.stringify(message, jsonReplacer)}\n`);
}

function jsonReplacer(_key, value) {
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  if (value instanceof Error) return { message: value.message, stack: value.stack };
  return value;
}

/** Ask the host for something; resolves with its value or rejects with its error. */
export function call(ext, ctxId, method, args, signal) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    send({ t: "call", id, ext, ctx: ctxId ?? null, method, args });
    if (signal) {
      const onAbort = () => send({ t: "abort", id });
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
  });
}

/** Tell the host something; no answer expected (order is kept with everything else we send). */
export function notify(ext, ctxId, method, args) {
  send({ t: "call", id: null, ext, ctx: ctxId ?? null, method, args });
}

export function settle(message) {
  const waiter = pending.get(message.id);
  if (!waiter) return;
  pending.delete(message.id);
  if (message.ok) waiter.resolve(message.value);
  else waiter.reject(new Error(message.error ?? "host call failed"));
}

export function listen(onMessage) {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.stderr.write(`pi node bridge: bad message from host: ${line.slice(0, 200)}\n`);
      return;
    }
    onMessage(message);
  });
  // The host closed the channel: nothing more can happen, so leave (timers would keep us alive).
  lines.on("close", () => process.exit(0));
}
