// The sidebar: every entry of every branch as one row; a side branch is indented where it forks.
// Only the rows in sight are in the page (fixed row height), so 50,000 entries scroll freely.

const ROW_H = 20;
const treeBox = document.getElementById('tree');
const treeSpacer = document.getElementById('tree-spacer');
const treeStatus = document.getElementById('tree-status');
const tree = { rows: [], visible: [], at: new Map(), filter: 'default', hits: null, drawn: -1, leafRow: null };

// At a fork the child leading to the session's leaf comes last, so side branches are listed
// where they leave the trunk instead of after all of it.
const onFileLeafPath = new Set(FILE_LEAF ? pathTo(FILE_LEAF).map((e) => e.id) : []);

function trunkLast(list) {
  if (list.length < 2) return list;
  return list.filter((e) => !onFileLeafPath.has(e.id)).concat(list.filter((e) => onFileLeafPath.has(e.id)));
}

function flattenTree() {
  const rows = [];
  const stack = [];
  // At a fork the last child continues the line at the same depth; the others are indented
  // one step, each marked where it starts.
  const push = (list, depth) => {
    for (let n = list.length - 1; n >= 0; n--) {
      const side = n < list.length - 1;
      stack.push({ entry: list[n], depth: side ? depth + 1 : depth, glyph: side ? '├─ ' : '' });
    }
  };
  push(trunkLast(roots), roots.length > 1 ? -1 : 0);
  while (stack.length) {
    const row = stack.pop();
    row.depth = Math.max(0, row.depth);
    rows.push(row);
    push(trunkLast(childrenOf.get(row.entry.id) || []), row.depth);
  }
  return rows;
}

const SETTINGS_KINDS = new Set(['label', 'customData', 'usage', 'sessionInfo', 'contextEdit', 'thinking', 'modelChange', 'other']);

function passesFilter(entry) {
  const kind = kindOf(entry);
  switch (tree.filter) {
    case 'all': return true;
    case 'user': return kind === 'user';
    case 'labeled': return labels.has(entry.id);
    case 'no-tools': return !SETTINGS_KINDS.has(kind) && kind !== 'toolResult';
    default: return !SETTINGS_KINDS.has(kind);
  }
}

function preview(text, max) {
  const flat = str(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

function rowLabel(entry) {
  const msg = messageOf(entry);
  const kind = kindOf(entry);
  if (kind === 'user') return ['user', 'user:', preview(textOf(msg.content), 140)];
  if (kind === 'assistant') {
    if (msg.stopReason === 'error') return ['error', 'error:', preview(msg.errorMessage || 'unknown error', 140)];
    const text = preview(textOf(msg.content), 140);
    if (text) return ['assistant', 'assistant:', text];
    const calls = (Array.isArray(msg.content) ? msg.content : []).filter((b) => b && b.type === 'toolCall');
    return ['assistant', 'assistant:', calls.length ? '[' + calls.map((c) => preview(toolTitle(str(c.name), c.arguments), 60)).join(', ') + ']' : '(empty)'];
  }
  if (kind === 'toolResult') return ['tool', '[' + str(msg.toolName) + ']', preview(textOf(msg.content), 100)];
  if (kind === 'bash') return ['tool', '[shell]', '$ ' + preview(msg.command, 100)];
  if (kind === 'custom') { const source = msg || entry; return ['note', '[' + str(source.customType) + ']', preview(textOf(source.content), 100)]; }
  if (kind === 'system') return ['note', '[system prompt]', Object.keys(msg.sections || {}).join(', ')];
  if (kind === 'compaction') return ['note', '[compaction]', fmtTokens((msg || entry).tokensBefore) + ' tokens'];
  if (kind === 'branchSummary') return ['note', '[branch summary]', preview((msg || entry).summary, 100)];
  if (kind === 'modelChange') return ['tool', '[model]', [entry.provider, entry.modelId].filter(Boolean).join('/')];
  if (kind === 'thinking') return ['tool', '[thinking]', str(entry.thinkingLevel)];
  if (kind === 'sessionInfo') return ['tool', '[name]', str(entry.name)];
  if (kind === 'label') return ['tool', '[label]', str(entry.label)];
  return ['tool', '[' + str(entry.type) + ']', str(entry.customType)];
}

function applyTreeFilter() {
  tree.visible = tree.rows.filter((row) => passesFilter(row.entry));
  tree.at = new Map(tree.visible.map((row, n) => [row.entry.id, n]));
  treeSpacer.style.height = tree.visible.length * ROW_H + 'px';
  // The active leaf's mark goes on its nearest row the filter keeps.
  let leaf = FILE_LEAF ? byId.get(FILE_LEAF) : null;
  while (leaf && !tree.at.has(leaf.id)) leaf = parentOf(leaf);
  tree.leafRow = leaf ? leaf.id : null;
  treeStatus.textContent = tree.visible.length + ' / ' + ENTRIES.length + ' entries · ' + leaves().length + ' leaves';
  drawTree(true);
}

function drawTree(force) {
  const first = Math.max(0, Math.floor(treeBox.scrollTop / ROW_H) - 10);
  const last = Math.min(tree.visible.length, first + Math.ceil((treeBox.clientHeight || 800) / ROW_H) + 20);
  if (!force && first === tree.drawn) return;
  tree.drawn = first;
  treeSpacer.textContent = '';
  for (let n = first; n < last; n++) treeSpacer.appendChild(rowNode(tree.visible[n], n));
}

function rowNode(row, n) {
  const entry = row.entry;
  const node = el('div', 'row');
  node.setAttribute('role', 'treeitem');
  node.dataset.id = entry.id;
  node.style.top = n * ROW_H + 'px';
  node.style.paddingLeft = 6 + row.depth * 14 + 'px';
  if (view.onPath.has(entry.id)) node.classList.add('path');
  if (entry.id === view.target || (!view.target && entry.id === view.leaf)) node.classList.add('current');
  if (tree.hits && tree.hits.has(entry.id)) node.classList.add('hit');
  if (row.glyph) node.appendChild(el('span', 'glyph', row.glyph));
  if (entry.id === tree.leafRow) { const mark = el('span', 'leaf-mark', '● '); mark.title = 'the session\'s active leaf'; node.appendChild(mark); }
  if (labels.has(entry.id)) node.appendChild(el('span', 'badge', labels.get(entry.id)));
  const [cls, who, text] = rowLabel(entry);
  node.appendChild(el('span', 'who w-' + cls, who));
  node.appendChild(document.createTextNode(' ' + text));
  node.title = who + ' ' + text;
  return node;
}

function scrollTreeTo(id) {
  let node = byId.get(id);
  while (node && !tree.at.has(node.id)) node = parentOf(node);
  if (!node) return;
  const top = tree.at.get(node.id) * ROW_H;
  if (top < treeBox.scrollTop || top > treeBox.scrollTop + treeBox.clientHeight - ROW_H) {
    treeBox.scrollTop = Math.max(0, top - treeBox.clientHeight / 2);
  }
  drawTree(true);
}

let treeFrame = 0;
treeBox.addEventListener('scroll', () => {
  if (!treeFrame) treeFrame = requestAnimationFrame(() => { treeFrame = 0; drawTree(false); });
});
