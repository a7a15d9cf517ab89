// Our stand-in for `@earendil-works/pi-coding-agent` as extensions import it: constants, text
// helpers, plain pi-tui components, and built-in tool factories whose tools run in the host.
import { homedir } from "node:os";
import { join } from "node:path";
import { call } from "../channel.mjs";
import { Container, Text } from "./pi-tui.mjs";
import { plainTheme } from "./theme.mjs";

export * from "./pi-ai.mjs";
export { Text, Container };

export const VERSION = "1.4.0";
export const CONFIG_DIR_NAME = ".pi";
export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;

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

function truncation(content, kept, by, options) {
  const all = content.split("\n");
  return {
    content: kept,
    truncated: by !== null,
    truncatedBy: by,
    totalLines: all.length,
    totalBytes: Buffer.byteLength(content),
    outputLines: kept === "" ? 0 : kept.split("\n").length,
    outputBytes: Buffer.byteLength(kept),
    lastLinePartial: false,
    firstLineExceedsLimit: false,
    maxLines: options.maxLines,
    maxBytes: options.maxBytes,
  };
}

function limits(options = {}) {
  return { maxLines: options.maxLines ?? DEFAULT_MAX_LINES, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
}

export function truncateHead(content, options) {
  const o = limits(options);
  const lines = content.split("\n");
  const out = [];
  let bytes = 0;
  for (const line of lines) {
    if (out.length >= o.maxLines) return truncation(content, out.join("\n"), "lines", o);
    const size = Buffer.byteLength(line) + (out.length ? 1 : 0);
    if (bytes + size > o.maxBytes) {
      const result = truncation(content, out.join("\n"), "bytes", o);
      result.firstLineExceedsLimit = out.length === 0;
      return result;
    }
    out.push(line);
    bytes += size;
  }
  return truncation(content, content, null, o);
}

export function truncateTail(content, options) {
  const o = limits(options);
  const lines = content.split("\n");
  const out = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (out.length >= o.maxLines) return truncation(content, out.join("\n"), "lines", o);
    const size = Buffer.byteLength(lines[i]) + (out.length ? 1 : 0);
    if (bytes + size > o.maxBytes) return truncation(content, out.join("\n"), "bytes", o);
    out.unshift(lines[i]);
    bytes += size;
  }
  return truncation(content, content, null, o);
}

export function truncateLine(line, maxChars = 500) {
  if (line.length <= maxChars) return { text: line, wasTruncated: false };
  return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
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

// Built-in tools: the tool runs in the host (our implementation of Pi's tool of that name).
function builtinTool(name, cwd) {
  return {
    name,
    label: name,
    description: `The built-in ${name} tool`,
    parameters: { type: "object", properties: {} },
    execute(toolCallId, params, signal) {
      return call(null, null, "builtinTool", [name, toolCallId, params, cwd ?? null], signal);
    },
  };
}

export const createReadTool = (cwd) => builtinTool("read", cwd);
export const createBashTool = (cwd) => builtinTool("bash", cwd);
export const createEditTool = (cwd) => builtinTool("edit", cwd);
export const createWriteTool = (cwd) => builtinTool("write", cwd);
export const createGrepTool = (cwd) => builtinTool("grep", cwd);
export const createFindTool = (cwd) => builtinTool("find", cwd);
export const createLsTool = (cwd) => builtinTool("ls", cwd);
export const createReadToolDefinition = createReadTool;
export const createBashToolDefinition = createBashTool;
export const createEditToolDefinition = createEditTool;
export const createWriteToolDefinition = createWriteTool;
export const createGrepToolDefinition = createGrepTool;
export const createFindToolDefinition = createFindTool;
export const createLsToolDefinition = createLsTool;
