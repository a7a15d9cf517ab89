// The message list: the entries of one branch (root to leaf), rendered in windows of CHUNK
// entries and extended as the reader scrolls, so a branch of any length opens at once.

const CHUNK = 120;
const scroller = document.getElementById('scroller');
const messagesBox = document.getElementById('messages');
const view = { leaf: null, target: null, items: [], index: new Map(), onPath: new Set(), start: 0, end: 0, nodes: new Map() };
const ui = { thinkingOpen: false, toolsOpen: false, showHidden: false };
let afterRender = () => {};
let onBranch = () => {};

function shownInList(entry) {
  const msg = messageOf(entry);
  // A tool result is drawn inside its call when the call is on the same branch.
  return !(msg && msg.role === 'toolResult' && callOwner.has(msg.toolCallId) && view.onPath.has(callOwner.get(msg.toolCallId)));
}

// The entry of the list that shows ``id`` (a tool result shows in its call's message).
function listEntryFor(id) {
  if (view.index.has(id)) return id;
  const msg = byId.has(id) ? messageOf(byId.get(id)) : null;
  if (msg && msg.role === 'toolResult' && view.index.has(callOwner.get(msg.toolCallId))) return callOwner.get(msg.toolCallId);
  return null;
}

const ROLE_TITLES = { user: 'User', assistant: 'Assistant', toolResult: 'Tool result', bash: 'Shell', custom: 'Extension',
  compaction: 'Compaction', system: 'System', branchSummary: 'Branch summary', customData: 'Extension data', usage: 'Usage', contextEdit: 'Context edit',
  label: 'Label', other: 'Entry' };
const INFO_KINDS = new Set(['modelChange', 'thinking', 'sessionInfo', 'label', 'contextEdit', 'usage']);

function entryNode(entry, position) {
  const kind = kindOf(entry);
  const msg = messageOf(entry);
  const node = el('div', 'entry ' + kind + (INFO_KINDS.has(kind) ? ' info' : '') + (isHiddenKind(entry) ? ' hidden-kind' : '')
    + (kind === 'compaction' || kind === 'branchSummary' ? ' summary' : ''));
  node.id = 'entry-' + entry.id;
  node.dataset.id = entry.id;
  if (!INFO_KINDS.has(kind)) {
    const head = el('div', 'head');
    head.appendChild(el('span', 'role', ROLE_TITLES[kind] || kind));
    if (msg && msg.role === 'assistant') {
      const previous = previousAssistant(position);
      const changed = previous && modelName(previous) !== modelName(msg);
      head.appendChild(el('span', changed ? 'model model-change' : 'model', modelName(msg) + (changed ? ' (model changed)' : '')));
    }
    if (labels.has(entry.id)) head.appendChild(el('span', 'label-badge', labels.get(entry.id)));
    head.appendChild(el('span', 'time', fmtTime(entry.timestamp || (msg && msg.timestamp))));
    const link = el('a', 'permalink', '#');
    link.href = '#' + new URLSearchParams({ leafId: view.leaf, targetId: entry.id }).toString();
    link.title = 'Link to this message';
    head.appendChild(link);
    node.appendChild(head);
  }
  partsDom(entryParts(entry), node);
  if (msg && msg.role === 'assistant' && msg.usage) {
    const u = msg.usage;
    const cost = u.cost && u.cost.total ? ' · ' + fmtCost(u.cost.total) : '';
    node.appendChild(el('div', 'foot', '↑' + fmtTokens(u.input) + ' ↓' + fmtTokens(u.output)
      + (u.cacheRead ? ' R' + fmtTokens(u.cacheRead) : '') + (u.cacheWrite ? ' W' + fmtTokens(u.cacheWrite) : '') + cost));
  }
  for (const box of node.querySelectorAll('details')) {
    if (box.dataset.kind === 'thinking') box.open = ui.thinkingOpen;
    if (box.dataset.kind === 'tool') box.open = ui.toolsOpen;
  }
  return node;
}

function previousAssistant(position) {
  for (let i = position - 1; i >= 0; i--) {
    const msg = messageOf(view.items[i]);
    if (msg && msg.role === 'assistant') return msg;
  }
  return null;
}

function renderRange(from, to) {
  const fragment = document.createDocumentFragment();
  for (let i = from; i < to; i++) {
    const node = entryNode(view.items[i], i);
    view.nodes.set(view.items[i].id, node);
    fragment.appendChild(node);
  }
  return fragment;
}

const topSentinel = el('div', 'sentinel');
const bottomSentinel = el('div', 'sentinel');
const observer = new IntersectionObserver((seen) => {
  for (const item of seen) {
    if (!item.isIntersecting) continue;
    if (item.target === bottomSentinel) extendDown(view.end + CHUNK);
    else if (item.target === topSentinel) extendUp(view.start - CHUNK);
    // Observing again reports the sentinel once more: still in reach means load one more chunk.
    observer.unobserve(item.target);
    if ((item.target === bottomSentinel && view.end < view.items.length) || (item.target === topSentinel && view.start > 0)) {
      observer.observe(item.target);
    }
  }
}, { root: scroller, rootMargin: '1500px 0px' });

function extendDown(to) {
  to = Math.min(view.items.length, to);
  if (to <= view.end) return;
  const from = view.end;
  view.end = to;
  messagesBox.insertBefore(renderRange(from, to), bottomSentinel);
  afterRender(from, to);
}

function extendUp(from) {
  from = Math.max(0, from);
  if (from >= view.start) return;
  const to = view.start;
  view.start = from;
  const before = scroller.scrollHeight;
  const first = topSentinel.nextSibling;
  messagesBox.insertBefore(renderRange(from, to), first);
  scroller.scrollTop += scroller.scrollHeight - before; // keep the reader's place
  afterRender(from, to);
}

// Make the list hold item ``position``: extend the window when it is near, else start a new one.
function ensureRendered(position) {
  if (position >= view.start && position < view.end) return;
  if (position >= view.end && position - view.end < 3 * CHUNK) { extendDown(position + CHUNK / 2); return; }
  if (position < view.start && view.start - position < 3 * CHUNK) { extendUp(position - CHUNK / 2); return; }
  openWindow(Math.max(0, position - CHUNK / 2));
}

function openWindow(start) {
  view.nodes.clear();
  messagesBox.textContent = '';
  view.start = start;
  view.end = start;
  messagesBox.appendChild(topSentinel);
  messagesBox.appendChild(bottomSentinel);
  extendDown(start + CHUNK);
  observer.observe(topSentinel);
  observer.observe(bottomSentinel);
}

// Show the branch that ends at ``leafId``; ``targetId`` is scrolled to and marked.
function showBranch(leafId, targetId, scrollMode) {
  view.leaf = leafId;
  const path = pathTo(leafId);
  view.onPath = new Set(path.map((e) => e.id));
  view.items = path.filter(shownInList);
  view.index = new Map(view.items.map((e, n) => [e.id, n]));
  onBranch();
  const target = targetId ? listEntryFor(targetId) : null;
  view.target = targetId || null;
  const position = target !== null ? view.index.get(target) : scrollMode === 'bottom' ? view.items.length - 1 : 0;
  openWindow(Math.max(0, position - CHUNK / 2));
  if (target !== null) scrollToEntry(target);
  else if (scrollMode === 'bottom') scroller.scrollTop = scroller.scrollHeight;
  else scroller.scrollTop = 0;
}

function scrollToEntry(id, block) {
  const position = view.index.get(id);
  if (position === undefined) return null;
  ensureRendered(position);
  const node = view.nodes.get(id);
  if (!node) return null;
  for (const old of messagesBox.querySelectorAll('.entry.target')) old.classList.remove('target');
  node.classList.add('target');
  node.scrollIntoView({ block: block || 'start' });
  return node;
}

// Open every collapsed ancestor of ``node`` and unclip its output, so a match inside is seen.
function reveal(node) {
  for (let up = node; up && up !== messagesBox; up = up.parentElement) {
    if (up.tagName === 'DETAILS') up.open = true;
    if (up.tagName === 'PRE' && up.classList.contains('clipped')) setClipped(up, false);
  }
}

function setAllDetails(kind, open) {
  for (const box of messagesBox.querySelectorAll('details[data-kind="' + kind + '"]')) box.open = open;
}
