// The session as data: entries by id, the tree (children in file order), labels, tool results
// by call id, paths, leaves and totals. Nothing here touches the page.

const DATA = JSON.parse(document.getElementById('session-data').textContent);
const ENTRIES = Array.isArray(DATA.entries) ? DATA.entries.filter((e) => e && typeof e.id === 'string') : [];
const byId = new Map();
const orderOf = new Map();
const childrenOf = new Map();
const roots = [];
const labels = new Map();
const resultsByCall = new Map();
const callOwner = new Map();

ENTRIES.forEach((entry, n) => { byId.set(entry.id, entry); orderOf.set(entry.id, n); childrenOf.set(entry.id, []); });
for (const entry of ENTRIES) {
  const parent = entry.parentId && byId.has(entry.parentId) && entry.parentId !== entry.id ? entry.parentId : null;
  if (parent) childrenOf.get(parent).push(entry); else roots.push(entry);
  if (entry.type === 'label' && entry.targetId) {
    if (entry.label) labels.set(entry.targetId, entry.label); else labels.delete(entry.targetId);
  }
  const msg = entry.type === 'message' ? entry.message : null;
  if (msg && msg.role === 'toolResult' && msg.toolCallId) resultsByCall.set(msg.toolCallId, msg);
  if (msg && msg.role === 'assistant' && Array.isArray(msg.content)) {
    for (const block of msg.content) if (block && block.type === 'toolCall' && block.id) callOwner.set(block.id, entry.id);
  }
}

const FILE_LEAF = DATA.leafId && byId.has(DATA.leafId) ? DATA.leafId : (ENTRIES.length ? ENTRIES[ENTRIES.length - 1].id : null);

function parentOf(entry) {
  return entry.parentId && byId.has(entry.parentId) && entry.parentId !== entry.id ? byId.get(entry.parentId) : null;
}

function pathTo(leafId) {
  const path = [];
  const seen = new Set();
  let node = byId.get(leafId);
  while (node && !seen.has(node.id)) { seen.add(node.id); path.push(node); node = parentOf(node); }
  return path.reverse();
}

function isAncestor(ancestorId, id) {
  let node = byId.get(id);
  let guard = 0;
  while (node && guard++ < 1e7) { if (node.id === ancestorId) return true; node = parentOf(node); }
  return false;
}

// The newest leaf under an entry (the file's own leaf when it is there).
function leafUnder(id) {
  if (FILE_LEAF && isAncestor(id, FILE_LEAF)) return FILE_LEAF;
  let best = id;
  const stack = [byId.get(id)];
  while (stack.length) {
    const node = stack.pop();
    const kids = childrenOf.get(node.id) || [];
    if (!kids.length && orderOf.get(node.id) > orderOf.get(best)) best = node.id;
    for (const kid of kids) stack.push(kid);
  }
  return best;
}

function leaves() {
  return ENTRIES.filter((e) => !(childrenOf.get(e.id) || []).length);
}

function messageOf(entry) { return entry.type === 'message' && entry.message ? entry.message : null; }

function kindOf(entry) {
  const msg = messageOf(entry);
  if (msg) {
    return { user: 'user', assistant: 'assistant', toolResult: 'toolResult', bashExecution: 'bash', custom: 'custom',
      compactionSummary: 'compaction', branchSummary: 'branchSummary', system: 'system' }[msg.role] || 'other';
  }
  return { compaction: 'compaction', branch_summary: 'branchSummary', custom_message: 'custom', model_change: 'modelChange',
    thinking_level_change: 'thinking', label: 'label', session_info: 'sessionInfo', custom: 'customData', usage: 'usage',
    context_edit: 'contextEdit' }[entry.type] || 'other';
}

// Kinds the message list hides until "h" (hidden entries) is on.
function isHiddenKind(entry) {
  const kind = kindOf(entry);
  if (['label', 'customData', 'usage', 'contextEdit', 'other'].includes(kind)) return true;
  if (kind === 'custom') { const source = messageOf(entry) || entry; return source.display === false; }
  return false;
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((b) => b && b.type === 'text').map((b) => String(b.text || '')).join('\n');
}

function fmtTokens(n) {
  n = Number(n) || 0;
  return n >= 1e6 ? (n / 1e6).toFixed(1) + 'M' : n >= 1e3 ? (n / 1e3).toFixed(1) + 'k' : String(n);
}

function fmtCost(n) { return '$' + (Number(n) || 0).toFixed(4); }

function fmtTime(stamp) {
  const date = typeof stamp === 'number' ? new Date(stamp) : new Date(String(stamp || ''));
  return isNaN(date.getTime()) ? '' : date.toLocaleString();
}

function modelName(msg) { return [msg.provider, msg.model].filter(Boolean).join('/'); }

function sessionStats(entries) {
  const stats = { roles: {}, toolCalls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, models: new Set(),
    compactions: 0, branchSummaries: 0 };
  for (const entry of entries) {
    const kind = kindOf(entry);
    if (kind === 'compaction') stats.compactions++;
    if (kind === 'branchSummary') stats.branchSummaries++;
    const msg = messageOf(entry);
    if (!msg) { if (entry.type === 'model_change') stats.models.add([entry.provider, entry.modelId].filter(Boolean).join('/')); continue; }
    stats.roles[msg.role] = (stats.roles[msg.role] || 0) + 1;
    if (msg.role !== 'assistant') continue;
    if (msg.model) stats.models.add(modelName(msg));
    if (Array.isArray(msg.content)) stats.toolCalls += msg.content.filter((b) => b && b.type === 'toolCall').length;
    const usage = msg.usage || {};
    stats.input += Number(usage.input) || 0;
    stats.output += Number(usage.output) || 0;
    stats.cacheRead += Number(usage.cacheRead) || 0;
    stats.cacheWrite += Number(usage.cacheWrite) || 0;
    stats.cost += Number(usage.cost && usage.cost.total) || 0;
  }
  return stats;
}
