// Search: counts matches in the texts every entry shows (partsSegments), highlights them in the
// rendered entries (<mark>, one logical match may span several text nodes), steps through the
// current branch's matches, marks matching rows of the tree and can hide entries without any.

const searchBox = document.getElementById('search');
const searchCount = document.getElementById('search-count');
const searchFilter = document.getElementById('search-filter');
const finder = { query: '', pattern: null, counts: new Map(), starts: [], total: 0, current: -1 };
const segmentCache = new Map();

function segmentsOf(entry) {
  let segments = segmentCache.get(entry.id);
  if (!segments) { segments = partsSegments(entryParts(entry), []); segmentCache.set(entry.id, segments); }
  return segments;
}

function patternFor(query) {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
}

function countMatches(text, pattern) {
  pattern.lastIndex = 0;
  let n = 0;
  while (pattern.exec(text)) n++;
  return n;
}

function runSearch(query) {
  clearHighlights();
  finder.query = query;
  finder.pattern = query ? patternFor(query) : null;
  finder.counts = new Map();
  if (finder.pattern) {
    for (const entry of ENTRIES) {
      let n = 0;
      for (const segment of segmentsOf(entry)) n += countMatches(segment, finder.pattern);
      if (n) finder.counts.set(entry.id, n);
    }
  }
  tree.hits = finder.pattern ? new Set(finder.counts.keys()) : null;
  indexBranch();
  finder.current = -1;
  for (const node of view.nodes.values()) decorate(node);
  drawTree(true);
  if (finder.total) gotoMatch(0); else updateCount();
}

// Where the current branch's matches start, entry by entry (positions in view.items).
function indexBranch() {
  finder.starts = new Array(view.items.length);
  let total = 0;
  view.items.forEach((entry, n) => { finder.starts[n] = total; total += finder.counts.get(entry.id) || 0; });
  finder.total = total;
}

function otherBranchHits() {
  let n = 0;
  for (const id of finder.counts.keys()) if (!view.index.has(id) && !view.onPath.has(id)) n++;
  return n;
}

function updateCount() {
  if (!finder.query) { searchCount.textContent = ''; return; }
  const others = otherBranchHits();
  searchCount.textContent = (finder.total ? finder.current + 1 + '/' + finder.total : 'no matches')
    + (others ? ' · ' + others + ' in other branches' : '');
}

function clearHighlights() {
  const parents = new Set();
  for (const mark of messagesBox.querySelectorAll('mark')) {
    parents.add(mark.parentNode);
    mark.replaceWith(document.createTextNode(mark.textContent));
  }
  for (const parent of parents) parent.normalize();
  for (const node of messagesBox.querySelectorAll('.entry.no-match')) node.classList.remove('no-match');
}

// Highlight the matches of one rendered entry and apply the "only matching" filter to it.
function decorate(node) {
  const id = node.dataset.id;
  const count = finder.counts.get(id) || 0;
  node.classList.toggle('no-match', Boolean(finder.pattern && searchFilter.checked && !count));
  if (!finder.pattern || !count) return;
  let number = finder.starts[view.index.get(id)] || 0;
  for (const box of node.querySelectorAll('.s')) number = highlight(box, finder.pattern, number);
}

function highlight(box, pattern, number) {
  const texts = [];
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  let full = '';
  while (walker.nextNode()) { texts.push({ node: walker.currentNode, at: full.length }); full += walker.currentNode.data; }
  const ranges = [];
  pattern.lastIndex = 0;
  let m;
  while ((m = pattern.exec(full))) ranges.push([m.index, m.index + m[0].length, number++]);
  if (!ranges.length) return number;
  for (const { node, at } of texts) {
    const end = at + node.data.length;
    const mine = ranges.filter(([a, b]) => a < end && b > at);
    if (!mine.length) continue;
    const fragment = document.createDocumentFragment();
    let cursor = 0;
    for (const [a, b, n] of mine) {
      const from = Math.max(a, at) - at;
      const to = Math.min(b, end) - at;
      if (from > cursor) fragment.appendChild(document.createTextNode(node.data.slice(cursor, from)));
      const mark = el('mark', n === finder.current ? 'current' : null, node.data.slice(from, to));
      mark.dataset.m = n;
      fragment.appendChild(mark);
      cursor = to;
    }
    if (cursor < node.data.length) fragment.appendChild(document.createTextNode(node.data.slice(cursor)));
    node.replaceWith(fragment);
  }
  return number;
}

function gotoMatch(n) {
  if (!finder.total) { updateCount(); return; }
  finder.current = ((n % finder.total) + finder.total) % finder.total;
  let lo = 0;
  let hi = view.items.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (finder.starts[mid] <= finder.current) lo = mid; else hi = mid - 1; }
  ensureRendered(lo);
  for (const old of messagesBox.querySelectorAll('mark.current')) old.classList.remove('current');
  const marks = messagesBox.querySelectorAll('mark[data-m="' + finder.current + '"]');
  marks.forEach((mark) => { mark.classList.add('current'); reveal(mark); });
  if (marks.length) marks[0].scrollIntoView({ block: 'center' });
  updateCount();
}

let searchTimer = 0;
searchBox.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => runSearch(searchBox.value.trim()), 120);
});
searchBox.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    event.preventDefault();
    clearTimeout(searchTimer);
    if (searchBox.value.trim() !== finder.query) runSearch(searchBox.value.trim());
    else gotoMatch(finder.current + (event.shiftKey ? -1 : 1));
  } else if (event.key === 'Escape') {
    searchBox.value = '';
    runSearch('');
    searchBox.blur();
  }
});
searchFilter.addEventListener('change', () => { for (const node of view.nodes.values()) node.classList.toggle('no-match',
  Boolean(finder.pattern && searchFilter.checked && !finder.counts.get(node.dataset.id))); });
document.getElementById('search-next').addEventListener('click', () => gotoMatch(finder.current + 1));
document.getElementById('search-prev').addEventListener('click', () => gotoMatch(finder.current - 1));
