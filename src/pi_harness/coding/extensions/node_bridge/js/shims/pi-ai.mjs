// Our stand-in for Pi's `@earendil-works/pi-ai` as extensions use it: schema helpers and a few
// small utilities. Streaming APIs are not available to extensions run by the bridge.
import { randomUUID } from "node:crypto";
import { Type } from "./typebox.mjs";

export { Type };

export function StringEnum(values, options = {}) {
  return { type: "string", enum: [...values], ...options };
}

export function uuidv7() {
  return randomUUID();
}

export function calculateCost(model, usage) {
  const cost = model?.cost ?? {};
  const part = (rate, tokens) => ((rate ?? 0) * (tokens ?? 0)) / 1_000_000;
  const result = {
    input: part(cost.input, usage?.input),
    output: part(cost.output, usage?.output),
    cacheRead: part(cost.cacheRead, usage?.cacheRead),
    cacheWrite: part(cost.cacheWrite, usage?.cacheWrite),
  };
  result.total = result.input + result.output + result.cacheRead + result.cacheWrite;
  if (usage) usage.cost = result;
  return result;
}

function unavailable(name) {
  return () => {
    throw new Error(`${name} is not available to extensions run by pi-harness's Node bridge`);
  };
}

export const streamSimple = unavailable("streamSimple");
export const complete = unavailable("complete");
export const completeSimple = unavailable("completeSimple");
export const createAssistantMessageEventStream = unavailable("createAssistantMessageEventStream");
export const registerApiProvider = unavailable("registerApiProvider");
export const anthropicMessagesApi = unavailable("anthropicMessagesApi");
export const openAIResponsesApi = unavailable("openAIResponsesApi");
export const getCurrentSystemPrompt = (context) => context?.systemPrompt;
export const getCurrentTools = (context) => context?.tools ?? [];
export const collapseSystemMessages = (messages) => messages;
export const getModel = () => undefined;
export const getModels = () => [];
