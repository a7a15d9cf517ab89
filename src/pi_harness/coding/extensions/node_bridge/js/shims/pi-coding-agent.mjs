// Our stand-in for `@earendil-works/pi-coding-agent` as extensions import it: constants, text
// helpers, plain pi-tui components, and built-in tool factories whose tools run in the host.
import { homedir } from "node:os";
import { join } from "node:path";
import { builtinTool } from "./builtin-tools.mjs";
import { Container, Text } from "./pi-tui.mjs";
import { plainTheme } from "./theme.mjs";

export * from "./pi-ai.mjs";
export { truncateHead, truncateTail, truncateLine, DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "./truncate.mjs";
export { Text, Container };

export const VERSION = "1.4.0";
export const CONFIG_DIR_NAME = ".pi";

export function getAgentDir() {
  const configured = process.env.PI_CODING_AGENT_DIR;
  if (configured) return configured.startsWith("~") ? join(homedir(), configured.slice(1)) : configured;
  return join(homedir(), CONFIG_DIR_NAME, "agent");
}

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

export const formatReadLineRange = (offset, limit) =>
  offset || limit ? `:${offset ?? 1}${limit ? `-${(offset ?? 1) + limit - 1}` : ""}` : "";
export const keyHint = (_keybinding, description) => description;
export const getMarkdownTheme = () => plainTheme;
export const getSettingsListTheme = () => plainTheme;
export const getSelectListTheme = () => plainTheme;
export const defineTool = (tool) => tool;
export const withFileMutationQueue = async (_path, fn) => fn();

export function parseFrontmatter(content) {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(content);
  if (!match) return { frontmatter: {}, body: content };
  const frontmatter = {};
  for (const line of match[1].split(/\r?\n/)) {
    const pair = /^([\w-]+):\s*(.*)$/.exec(line);
    if (pair) frontmatter[pair[1]] = pair[2].replace(/^["']|["']$/g, "");
  }
  return { frontmatter, body: content.slice(match[0].length) };
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part.type === "text" ? part.text : part.type === "image" ? "[image]" : ""))
    .join("");
}

export function convertToLlm(messages) {
  return messages.filter((m) => ["user", "assistant", "toolResult"].includes(m.role));
}

export function serializeConversation(messages) {
  const parts = [];
  for (const message of messages) {
    if (message.role === "user") parts.push(`[User]: ${textOf(message.content)}`);
    else if (message.role === "assistant") {
      const text = message.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
      if (text) parts.push(`[Assistant]: ${text}`);
      for (const c of message.content.filter((c) => c.type === "toolCall")) {
        parts.push(`[Assistant tool calls]: ${c.name}(${JSON.stringify(c.arguments)})`);
      }
    } else if (message.role === "toolResult") parts.push(`[Tool result]: ${textOf(message.content)}`);
  }
  return parts.join("\n\n");
}

export class DynamicBorder {
  render(width) {
    return ["─".repeat(Math.max(0, width))];
  }
  invalidate() {}
}
export class BorderedLoader extends Text {
  constructor(_tui, _theme, message = "") {
    super(message);
    this.signal = new AbortController().signal;
  }
}
export class CustomEditor extends Text {}

// Built-in tools (builtin-tools.mjs), with or without options (spawnHook for bash).
const factory = (name) => (cwd, options) => builtinTool(name, cwd, options);
export const createReadTool = factory("read");
export const createBashTool = factory("bash");
export const createEditTool = factory("edit");
export const createWriteTool = factory("write");
export const createGrepTool = factory("grep");
export const createFindTool = factory("find");
export const createLsTool = factory("ls");
export const createReadToolDefinition = createReadTool;
export const createBashToolDefinition = createBashTool;
export const createEditToolDefinition = createEditTool;
export const createWriteToolDefinition = createWriteTool;
export const createGrepToolDefinition = createGrepTool;
export const createFindToolDefinition = createFindTool;
export const createLsToolDefinition = createLsTool;
