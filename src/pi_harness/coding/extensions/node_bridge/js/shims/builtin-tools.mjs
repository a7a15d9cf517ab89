// The built-in tool factories of Pi's package (`createBashTool(cwd)`...), for extensions that
// wrap or re-register a built-in tool. An extension tool of the same name replaces the host's
// built-in, so the host cannot run it for them: bash, read, write, edit and ls run here, in
// Node (grep and find with a plain walk that skips .git and node_modules, not .gitignore).
// Names, descriptions and parameters are those of pi-harness's tools (builtin-tools.json).
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, isAbsolute, matchesGlob, relative, resolve } from "node:path";
import { state } from "../state.mjs";
import { truncateHead, truncateTail } from "./truncate.mjs";

const SPECS = createRequire(import.meta.url)("./builtin-tools.json");

const text = (value, details) => ({ content: [{ type: "text", text: value }], ...(details ? { details } : {}) });
const where = (cwd, path) => (isAbsolute(path) ? path : resolve(cwd ?? state.cwd, path.replace(/^@/, "")));

function runBash(cwd, options, params, signal) {
  let spec = { command: params.command, cwd: cwd ?? state.cwd, env: { ...process.env } };
  if (typeof options.spawnHook === "function") spec = { ...spec, ...options.spawnHook(spec) };
  return new Promise((done, fail) => {
    const child = spawn("bash", ["-c", spec.command], { cwd: spec.cwd, env: spec.env, detached: true });
    let output = "";
    let timedOut = false;
    const stop = () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    };
    const timer = params.timeout ? setTimeout(() => ((timedOut = true), stop()), params.timeout * 1000) : undefined;
    signal?.addEventListener("abort", stop, { once: true });
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => fail(error));
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      const shown = truncateTail(output).content || "(no output)";
      if (signal?.aborted) fail(new Error(`${shown}\n\nCommand aborted`));
      else if (timedOut) fail(new Error(`${shown}\n\nCommand timed out after ${params.timeout} seconds`));
      else if (code !== 0) fail(new Error(`${shown}\n\nCommand exited with code ${code}`));
      else done(text(shown));
    });
  });
}

async function runRead(cwd, _options, params) {
  const lines = (await readFile(where(cwd, params.path), "utf8")).split("\n");
  const start = Math.max(1, params.offset ?? 1);
  const slice = lines.slice(start - 1, params.limit ? start - 1 + params.limit : undefined);
  const shown = truncateHead(slice.join("\n"));
  const end = start - 1 + shown.outputLines;
  const more = end < lines.length ? `\n\n[Showing lines ${start}-${end} of ${lines.length}. Use offset=${end + 1} to continue.]` : "";
  return text(shown.content + more);
}

async function runWrite(cwd, _options, params) {
  const path = where(cwd, params.path);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, params.content);
  return text(`Successfully wrote ${Buffer.byteLength(params.content)} bytes to ${params.path}`);
}

async function runEdit(cwd, _options, params) {
  const path = where(cwd, params.path);
  const edits = params.edits ?? [{ oldText: params.oldText, newText: params.newText }];
  let content = await readFile(path, "utf8");
  for (const edit of edits) {
    const count = content.split(edit.oldText).length - 1;
    if (count !== 1) {
      throw new Error(count === 0 ? `Could not find the text to replace in ${params.path}` : `The text to replace occurs ${count} times in ${params.path}`);
    }
    content = content.replace(edit.oldText, () => edit.newText);
  }
  await writeFile(path, content);
  return text(edits.length === 1 ? `Successfully replaced text in ${params.path}.` : `Successfully replaced ${edits.length} block(s) in ${params.path}.`);
}

async function runLs(cwd, _options, params) {
  const directory = where(cwd, params.path ?? ".");
  const names = (await readdir(directory)).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  const shown = [];
  for (const name of names.slice(0, params.limit ?? 500)) {
    const info = await stat(resolve(directory, name)).catch(() => undefined);
    shown.push(info?.isDirectory() ? `${name}/` : name);
  }
  return text(shown.join("\n") || "(empty directory)");
}

const SKIPPED_DIRS = new Set([".git", "node_modules"]);

async function* walk(root, directory = root) {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = resolve(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walk(root, path);
    } else if (entry.isFile()) {
      yield relative(root, path);
    }
  }
}

function globMatches(rel, pattern) {
  return pattern.includes("/") ? matchesGlob(rel, pattern) : matchesGlob(rel.split("/").pop(), pattern);
}

async function runFind(cwd, _options, params) {
  const root = where(cwd, params.path ?? ".");
  const found = [];
  for await (const rel of walk(root)) {
    if (globMatches(rel, params.pattern)) found.push(rel);
    if (found.length >= (params.limit ?? 1000)) break;
  }
  return text(found.length ? truncateHead(found.join("\n")).content : "No files found matching pattern");
}

async function runGrep(cwd, _options, params) {
  const root = where(cwd, params.path ?? ".");
  const source = params.literal ? params.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : params.pattern;
  const regex = new RegExp(source, params.ignoreCase ? "i" : "");
  const limit = params.limit ?? 100;
  const lines = [];
  const single = await stat(root).then((info) => info.isFile(), () => false);
  const files = single ? [[dirname(root), relative(dirname(root), root)]] : [];
  if (!single) for await (const rel of walk(root)) if (!params.glob || globMatches(rel, params.glob)) files.push([root, rel]);
  for (const [base, rel] of files) {
    const content = await readFile(resolve(base, rel), "utf8").catch(() => "\0");
    if (content.includes("\0")) continue;
    const fileLines = content.split("\n");
    fileLines.forEach((line, index) => {
      if (lines.length < limit && regex.test(line)) lines.push(`${rel}:${index + 1}: ${line.slice(0, 500)}`);
    });
    if (lines.length >= limit) break;
  }
  return text(lines.length ? truncateHead(lines.join("\n")).content : "No matches found");
}

const LOCAL = {
  bash: runBash,
  read: runRead,
  write: runWrite,
  edit: runEdit,
  ls: runLs,
  find: runFind,
  grep: runGrep,
};

export function builtinTool(name, cwd, options = {}) {
  const spec = SPECS[name];
  const local = LOCAL[name];
  return {
    ...spec,
    execute(toolCallId, params, signal) {
      return local(cwd, options, params, signal);
    },
  };
}
