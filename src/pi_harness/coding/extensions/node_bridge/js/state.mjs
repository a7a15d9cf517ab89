// What the host last told us about its session. Pi's ctx getters are synchronous, so the host
// sends this snapshot with every request (entries incrementally) and ctx reads it.
export const state = {
  cwd: process.cwd(),
  hasUI: false,
  mode: "print",
  model: undefined,
  models: [],
  entries: [],
  header: null,
  leafId: null,
  sessionFile: undefined,
  sessionId: "",
  sessionDir: "",
  sessionName: undefined,
  isIdle: true,
  hasPendingMessages: false,
  contextUsage: undefined,
  systemPrompt: "",
  activeTools: [],
  allTools: [],
  commands: [],
  thinkingLevel: "off",
  flags: {},
  editorText: "",
  labels: {},
};

export function applySnapshot(snapshot) {
  if (!snapshot) return;
  const { entries, entriesFrom, flags, ...rest } = snapshot;
  // Each request carries the flags of its own extension; flag names are unique across them.
  if (flags) state.flags = { ...state.flags, ...flags };
  if (Array.isArray(entries)) {
    state.entries = entriesFrom ? state.entries.slice(0, entriesFrom).concat(entries) : entries;
  }
  Object.assign(state, rest);
}

function byId() {
  const map = new Map();
  for (const entry of state.entries) map.set(entry.id, entry);
  return map;
}

function branchTo(leafId) {
  const entries = byId();
  const branch = [];
  let current = leafId ? entries.get(leafId) : undefined;
  while (current) {
    branch.unshift(current);
    current = current.parentId ? entries.get(current.parentId) : undefined;
  }
  return branch;
}

function tree() {
  const nodes = new Map();
  for (const entry of state.entries) nodes.set(entry.id, { entry, children: [], label: state.labels[entry.id] });
  const roots = [];
  for (const node of nodes.values()) {
    const parent = node.entry.parentId ? nodes.get(node.entry.parentId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** ctx.sessionManager: the read-only part of Pi's SessionManager, over the snapshot. */
export const sessionManager = {
  getCwd: () => state.cwd,
  getSessionDir: () => state.sessionDir,
  getSessionId: () => state.sessionId,
  getSessionFile: () => state.sessionFile ?? undefined,
  getLeafId: () => state.leafId,
  getLeafEntry: () => (state.leafId ? byId().get(state.leafId) : undefined),
  getEntry: (id) => byId().get(id),
  getLabel: (id) => state.labels[id],
  getBranch: (fromId) => branchTo(fromId ?? state.leafId),
  getHeader: () => state.header,
  getEntries: () => state.entries.slice(),
  getTree: () => tree(),
  getSessionName: () => state.sessionName,
  isPersisted: () => Boolean(state.sessionFile),
};
