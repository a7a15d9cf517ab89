// The page's header, toolbar, keyboard and address: wiring the parts above together.

function renderHeader() {
  const header = document.getElementById('session-header');
  const info = DATA.header || {};
  header.appendChild(el('h1', null, str(DATA.title) || 'Session'));
  const meta = [info.id, info.cwd].filter(Boolean).join(' · ');
  if (meta) header.appendChild(el('div', 'muted mono', meta));
  const stats = sessionStats(ENTRIES);
  const branch = sessionStats(pathTo(FILE_LEAF));
  const roles = stats.roles;
  const rows = [
    ['Started', fmtTime(info.timestamp)],
    ['Exported', [fmtTime(DATA.exportedAt), DATA.generator ? 'by ' + DATA.generator : ''].filter(Boolean).join(' ')],
    ['Entries', ENTRIES.length + ' in ' + leaves().length + (leaves().length === 1 ? ' branch' : ' branches')],
    ['Messages', [roles.user && roles.user + ' user', roles.assistant && roles.assistant + ' assistant',
      roles.toolResult && roles.toolResult + ' tool results', stats.compactions && stats.compactions + ' compactions',
      stats.branchSummaries && stats.branchSummaries + ' branch summaries'].filter(Boolean).join(', ') || 'none'],
    ['Tool calls', String(stats.toolCalls)],
    ['Models', Array.from(stats.models).join(', ') || '—'],
    ['Tokens', '↑' + fmtTokens(stats.input) + ' ↓' + fmtTokens(stats.output) + ' R' + fmtTokens(stats.cacheRead) + ' W' + fmtTokens(stats.cacheWrite)],
    ['Cost', fmtCost(stats.cost) + (leaves().length > 1 ? ' (active branch ' + fmtCost(branch.cost) + ')' : '')],
  ];
  const list = el('dl', 'stats');
  for (const [name, value] of rows) {
    if (!value) continue;
    list.appendChild(el('dt', null, name));
    list.appendChild(el('dd', null, value));
  }
  header.appendChild(list);
  if (DATA.systemPrompt) {
    header.appendChild(partsDom([{ k: 'details', cls: 'system', kind: 'system', summary: [{ k: 'note', text: 'System prompt' }],
      body: [{ k: 'pre', text: str(DATA.systemPrompt), clip: true }] }], el('div')));
  }
  if (Array.isArray(DATA.tools) && DATA.tools.length) {
    const body = DATA.tools.map((tool) => ({ k: 'pre', text: str(tool.name) + ': ' + str(tool.description) }));
    header.appendChild(partsDom([{ k: 'details', cls: 'system', kind: 'tools', summary: [{ k: 'note', text: 'Tools (' + DATA.tools.length + ')' }],
      body }], el('div')));
  }
}

function writeAddress() {
  const params = new URLSearchParams();
  if (view.leaf) params.set('leafId', view.leaf);
  if (view.target && view.target !== view.leaf) params.set('targetId', view.target);
  try { history.replaceState(null, '', '#' + params.toString()); } catch (error) { /* file:// in some browsers */ }
}

// Go to an entry: its branch is the one shown now (kept when the entry is on it already).
function navigate(id, scrollMode) {
  if (!byId.has(id)) return;
  const leaf = view.onPath.has(id) ? view.leaf : leafUnder(id);
  showBranch(leaf, id, scrollMode);
  drawTree(true);
  scrollTreeTo(id);
  writeAddress();
  if (finder.query && finder.total) {
    const position = view.index.get(listEntryFor(id));
    if (position !== undefined && finder.counts.get(view.items[position].id)) gotoMatch(finder.starts[position]);
    else updateCount();
  } else updateCount();
}

function setToggle(id, on) { document.getElementById(id).classList.toggle('on', on); }

function toggleThinking() { ui.thinkingOpen = !ui.thinkingOpen; setAllDetails('thinking', ui.thinkingOpen); setToggle('toggle-thinking', ui.thinkingOpen); }
function toggleTools() { ui.toolsOpen = !ui.toolsOpen; setAllDetails('tool', ui.toolsOpen); setToggle('toggle-tools', ui.toolsOpen); }
function toggleHidden() { ui.showHidden = !ui.showHidden; document.body.classList.toggle('show-hidden', ui.showHidden); setToggle('toggle-hidden', ui.showHidden); }
function toggleSidebar() {
  const narrow = window.matchMedia('(max-width: 760px)').matches;
  document.body.classList.toggle(narrow ? 'sidebar-open' : 'no-sidebar');
  drawTree(true);
}

function stepEntry(delta) {
  const nodes = Array.from(messagesBox.querySelectorAll('.entry')).filter((node) => node.offsetParent !== null);
  const top = scroller.getBoundingClientRect().top;
  let at = nodes.findIndex((node) => node.getBoundingClientRect().top > top + 4);
  if (at === -1) at = nodes.length;
  const next = nodes[delta > 0 ? at : at - 2];
  if (next) next.scrollIntoView({ block: 'start' });
}

// The next or previous entry of the branch where the tree forks.
function stepBranchPoint(delta) {
  const points = view.items.filter((entry) => (childrenOf.get(entry.id) || []).length > 1);
  if (!points.length) return;
  const current = view.target ? view.index.get(listEntryFor(view.target)) ?? -1 : -1;
  const ahead = delta > 0 ? points.find((e) => view.index.get(e.id) > current) : points.slice().reverse().find((e) => view.index.get(e.id) < current);
  if (ahead) { view.target = ahead.id; scrollToEntry(ahead.id); scrollTreeTo(ahead.id); writeAddress(); }
}

function closeOverlays() {
  let closed = false;
  for (const box of document.querySelectorAll('.overlay')) { if (!box.hidden) closed = true; box.hidden = true; }
  return closed;
}

function editing(target) {
  return target && (['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.isContentEditable);
}

document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') {
    if (closeOverlays()) return;
    if (finder.query) { searchBox.value = ''; runSearch(''); }
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey || editing(event.target)) return;
  const actions = {
    '/': () => { searchBox.focus(); searchBox.select(); },
    n: () => gotoMatch(finder.current + 1), N: () => gotoMatch(finder.current - 1),
    j: () => stepEntry(1), k: () => stepEntry(-1),
    ']': () => stepBranchPoint(1), '[': () => stepBranchPoint(-1),
    g: () => { scroller.scrollTop = 0; }, G: () => { ensureRendered(view.items.length - 1); scroller.scrollTop = scroller.scrollHeight; },
    t: toggleThinking, o: toggleTools, h: toggleHidden, b: toggleSidebar,
    '?': () => { document.getElementById('help').hidden = false; },
  };
  const action = actions[event.key];
  if (action) { event.preventDefault(); action(); }
});

// In the tree, the arrow keys move to the next or previous row the filter shows.
treeBox.addEventListener('keydown', (event) => {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  event.preventDefault();
  let node = byId.get(view.target || view.leaf);
  while (node && !tree.at.has(node.id)) node = parentOf(node);
  const at = node ? tree.at.get(node.id) : -1;
  const next = tree.visible[Math.max(0, Math.min(tree.visible.length - 1, at + (event.key === 'ArrowDown' ? 1 : -1)))];
  if (next) navigate(next.entry.id, 'target');
});
window.addEventListener('hashchange', () => {
  const wanted = readAddress();
  if (wanted.leaf && (wanted.leaf !== view.leaf || wanted.target !== view.target)) {
    showBranch(wanted.leaf, wanted.target, 'top');
    drawTree(true);
    scrollTreeTo(wanted.target || wanted.leaf);
    updateCount();
  }
});
treeBox.addEventListener('click', (event) => {
  const row = event.target.closest('.row');
  if (row) navigate(row.dataset.id, 'target');
});
for (const button of document.querySelectorAll('.filter')) {
  button.addEventListener('click', () => {
    for (const other of document.querySelectorAll('.filter')) other.classList.toggle('on', other === button);
    tree.filter = button.dataset.filter;
    applyTreeFilter();
    scrollTreeTo(view.target || view.leaf);
  });
}
document.getElementById('toggle-thinking').addEventListener('click', toggleThinking);
document.getElementById('toggle-tools').addEventListener('click', toggleTools);
document.getElementById('toggle-hidden').addEventListener('click', toggleHidden);
document.getElementById('toggle-sidebar').addEventListener('click', toggleSidebar);
document.getElementById('show-help').addEventListener('click', () => { document.getElementById('help').hidden = false; });
for (const box of document.querySelectorAll('.overlay')) box.addEventListener('click', () => { box.hidden = true; });
messagesBox.addEventListener('click', (event) => {
  const img = event.target.closest('img.inline');
  if (!img) return;
  document.getElementById('modal-image').src = img.src;
  document.getElementById('image-modal').hidden = false;
});

// Printing shows the whole branch with everything expanded; the screen state comes back after.
let printState = null;
window.addEventListener('beforeprint', () => {
  ensureRendered(0);
  extendDown(view.items.length);
  printState = new Map();
  for (const box of messagesBox.querySelectorAll('details')) { printState.set(box, box.open); box.open = true; }
});
window.addEventListener('afterprint', () => {
  if (!printState) return;
  for (const [box, open] of printState) box.open = open;
  printState = null;
});

afterRender = (from, to) => { for (let i = from; i < to; i++) { const node = view.nodes.get(view.items[i].id); if (node) decorate(node); } };
onBranch = () => indexBranch();

function readAddress() {
  const params = new URLSearchParams(location.hash.slice(1) || location.search.slice(1));
  const leaf = params.get('leafId');
  const target = params.get('targetId');
  return { leaf: leaf && byId.has(leaf) ? leaf : null, target: target && byId.has(target) ? target : null };
}

renderHeader();
tree.rows = flattenTree();
const start = readAddress();
const firstLeaf = start.leaf || (start.target ? leafUnder(start.target) : FILE_LEAF);
if (firstLeaf) showBranch(firstLeaf, start.target, 'top');
applyTreeFilter();
scrollTreeTo(start.target || firstLeaf);
document.body.dataset.ready = '1';
