// Drives `pi --mode rpc` through Pi 1.4.0's own RpcClient (dist/modes/rpc/rpc-client.js), calling
// every one of its methods once, and writes what each returned (or the error it threw) as JSON.
// Used by test_rpc_client.py, for the reference Pi (to record the golden) and for ours.
//
//   node rpc_client_driver.mjs CONFIG.json
//
// CONFIG: {"rpcClient": path of rpc-client.js, "cliPath": the program RpcClient starts with
// `node cliPath --mode rpc ...`, "cwd": the project, "env": extra environment, "out": result file,
// "exportPath": where export_html should write}.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const { RpcClient } = await import(pathToFileURL(config.rpcClient).href);

const client = new RpcClient({ cliPath: config.cliPath, cwd: config.cwd, env: config.env, args: [] });
const calls = [];
const events = [];

function describeError(error) {
  // The message up to "Stderr:" (RpcClient appends the child's whole stderr to some errors).
  const message = error instanceof Error ? error.message : String(error);
  return message.split(" Stderr:")[0];
}

async function call(method, run) {
  try {
    const value = await run();
    calls.push({ method, ok: true, value: value === undefined ? "<undefined>" : value });
    return value;
  } catch (error) {
    calls.push({ method, ok: false, error: describeError(error) });
    return undefined;
  }
}

function nextEvent(type, where = () => true, timeout = 20000) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve(null);
    }, timeout);
    const stop = client.onEvent((event) => {
      if (event.type === type && where(event)) {
        clearTimeout(timer);
        stop();
        resolve(event);
      }
    });
  });
}

client.onEvent((event) => events.push(event.type));

await call("start", () => client.start());
await call("onEvent", async () => typeof client.onEvent(() => {}));
await call("getStderr", async () => typeof client.getStderr());
const state = await call("getState", () => client.getState());
await call("getAvailableModels", () => client.getAvailableModels());
await call("setModel", () => client.setModel("fake", "scripted"));
await call("cycleModel", () => client.cycleModel());
await call("getAvailableThinkingLevels", () => client.getAvailableThinkingLevels());
await call("setThinkingLevel", () => client.setThinkingLevel("high"));
await call("cycleThinkingLevel", () => client.cycleThinkingLevel());
await call("setThinkingLevel(off)", () => client.setThinkingLevel("off"));
await call("setSteeringMode", () => client.setSteeringMode("all"));
await call("setFollowUpMode", () => client.setFollowUpMode("all"));
await call("setAutoCompaction", () => client.setAutoCompaction(false));
await call("setAutoRetry", () => client.setAutoRetry(true));
await call("getCommands", () => client.getCommands());
await call("promptAndWait", async () => (await client.promptAndWait("Hello", undefined, 20000)).map((e) => e.type));
await call("getLastAssistantText", () => client.getLastAssistantText());
await call("getMessages", () => client.getMessages());
await call("getSessionStats", () => client.getSessionStats());
await call("bash", () => client.bash("echo from-bash"));
await call("abortBash", () => client.abortBash());

// A run whose tool call sleeps: steer, follow up and clear the queue while it runs.
const toolStarted = nextEvent("tool_execution_start");
await call("prompt", () => client.prompt("Run the slow command"));
await toolStarted;
await call("steer", () => client.steer("Steer text"));
await call("followUp", () => client.followUp("Follow-up text"));
await call("clearQueue", () => client.clearQueue());
await call("waitForIdle", () => client.waitForIdle(20000));

// A slow answer, aborted while it streams.
const streaming = nextEvent("message_update", (e) => e.assistantMessageEvent?.type === "text_delta");
const settledAfterAbort = nextEvent("agent_settled");
await call("prompt(slow)", () => client.prompt("Write a long text"));
await streaming;
await call("abort", () => client.abort());
await settledAfterAbort;

await call("collectEvents", async () => {
  const collected = client.collectEvents(20000);
  await client.prompt("Short one please");
  return (await collected).map((e) => e.type);
});
await call("abortRetry", () => client.abortRetry());
await call("compact", () => client.compact("Keep it short"));
const entries = await call("getEntries", () => client.getEntries());
await call("getEntries(since)", () => client.getEntries(entries?.entries?.[0]?.id ?? "missing"));
await call("getTree", () => client.getTree());
await call("exportHtml", () => client.exportHtml(config.exportPath));
await call("clone", () => client.clone());
const forks = await call("getForkMessages", () => client.getForkMessages());
await call("fork", () => client.fork(forks?.[0]?.entryId ?? "missing"));
await call("setSessionName", () => client.setSessionName("client session"));
await call("newSession", () => client.newSession());
await call("switchSession", () => client.switchSession(state?.sessionFile ?? "missing"));
await call("getState(after switch)", () => client.getState());
await call("stop", () => client.stop());

writeFileSync(config.out, JSON.stringify({ calls, events }, null, 1));
process.exit(0);
