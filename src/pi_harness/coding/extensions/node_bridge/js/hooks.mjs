// Module resolution and loading hooks for extensions run by the sidecar (registered with
// module.register from host.mjs). Pi's own packages resolve to our shims; TypeScript files are
// stripped of their types here, so that files under node_modules (npm packages) load too.
import { existsSync, readFileSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const SHIMS = new URL("./shims/", import.meta.url);
const PI_PACKAGES = {
  "pi-coding-agent": "pi-coding-agent.mjs",
  "pi-ai": "pi-ai.mjs",
  "pi-ai/compat": "pi-ai.mjs",
  "pi-tui": "pi-tui.mjs",
  "pi-agent-core": "pi-agent-core.mjs",
};
const PI_SCOPES = ["@earendil-works/", "@mariozechner/"];

function shimFor(specifier) {
  for (const scope of PI_SCOPES) {
    if (specifier.startsWith(scope)) {
      const file = PI_PACKAGES[specifier.slice(scope.length)];
      if (file) return new URL(file, SHIMS).href;
    }
  }
  return null;
}

const TS = /\.(ts|mts|cts|tsx)$/;

export async function resolve(specifier, context, nextResolve) {
  const shim = shimFor(specifier);
  if (shim) return { url: shim, shortCircuit: true };
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (specifier === "typebox" || specifier.startsWith("typebox/") || specifier.startsWith("@sinclair/typebox")) {
      return { url: new URL("typebox.mjs", SHIMS).href, shortCircuit: true };
    }
    // Pi loads extensions with a loader that accepts "./x.js" for "./x.ts" and extensionless
    // relative imports; do the same for relative specifiers.
    if ((specifier.startsWith(".") || specifier.startsWith("/")) && context.parentURL?.startsWith("file:")) {
      const base = new URL(specifier, context.parentURL);
      const path = fileURLToPath(base);
      const candidates = [
        path.replace(/\.js$/, ".ts"),
        path.replace(/\.mjs$/, ".mts"),
        `${path}.ts`,
        `${path}.js`,
        `${path}/index.ts`,
        `${path}/index.js`,
      ];
      for (const candidate of candidates) {
        if (candidate !== path && existsSync(candidate)) {
          return { url: pathToFileURL(candidate).href, shortCircuit: true };
        }
      }
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (url.startsWith("file:") && TS.test(url)) {
    const source = readFileSync(fileURLToPath(url), "utf8");
    const code = stripTypeScriptTypes(source, { mode: "transform", sourceUrl: url });
    return { format: "module", source: code, shortCircuit: true };
  }
  return nextLoad(url, context);
}
