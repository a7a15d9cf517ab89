// A small Markdown reader: text -> blocks -> DOM built with text nodes only (raw HTML in the
// source stays text). The same blocks give the plain text of every searchable element, so the
// search counts exactly what the page shows. Links keep only http(s) and mailto targets.

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

const MD_FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const MD_HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const MD_HR = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const MD_QUOTE = /^ {0,3}> ?(.*)$/;
const MD_ITEM = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const MD_TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function mdStartsBlock(line) {
  return MD_FENCE.test(line) || MD_HEADING.test(line) || MD_HR.test(line) || MD_QUOTE.test(line) || MD_ITEM.test(line);
}

function mdCells(line) {
  let text = line.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  return text.split(/(?<!\\)\|/).map((cell) => mdInline(cell.trim().replace(/\\\|/g, '|')));
}

function mdBlocks(source) {
  const lines = String(source).replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  const blocks = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    let m = MD_FENCE.exec(line);
    if (m) {
      const fence = m[1];
      const body = [];
      i++;
      while (i < lines.length && !(lines[i].trim().startsWith(fence) && !lines[i].trim().slice(fence.length).trim())) {
        body.push(lines[i]);
        i++;
      }
      i++;
      blocks.push({ t: 'code', lang: m[2] || '', text: body.join('\n') });
      continue;
    }
    if ((m = MD_HEADING.exec(line))) { blocks.push({ t: 'h', level: m[1].length, c: mdInline(m[2]) }); i++; continue; }
    if (MD_HR.test(line)) { blocks.push({ t: 'hr' }); i++; continue; }
    if (MD_QUOTE.test(line)) {
      const body = [];
      while (i < lines.length && (m = MD_QUOTE.exec(lines[i]))) { body.push(m[1]); i++; }
      blocks.push({ t: 'quote', blocks: mdBlocks(body.join('\n')) });
      continue;
    }
    if ((m = MD_ITEM.exec(line))) {
      const indent = m[1].length;
      const ordered = /\d/.test(m[2]);
      const list = { t: 'list', ordered, start: ordered ? parseInt(m[2], 10) : 1, items: [] };
      while (i < lines.length) {
        const item = MD_ITEM.exec(lines[i]);
        if (!item || item[1].length !== indent || /\d/.test(item[2]) !== ordered) break;
        const body = [item[3]];
        const inner = indent + item[2].length + 1;
        i++;
        while (i < lines.length) {
          const next = lines[i];
          if (!next.trim()) {
            if (i + 1 < lines.length && lines[i + 1].startsWith(' '.repeat(inner)) && lines[i + 1].trim()) { body.push(''); i++; continue; }
            break;
          }
          const nested = MD_ITEM.exec(next);
          if (nested && nested[1].length <= indent) break;
          if (!nested && mdStartsBlock(next) && !next.startsWith(' '.repeat(inner))) break;
          body.push(next.startsWith(' '.repeat(inner)) ? next.slice(inner) : next.trimStart());
          i++;
        }
        list.items.push(mdBlocks(body.join('\n')));
      }
      blocks.push(list);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && MD_TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      const head = mdCells(line);
      const align = mdCells(lines[i + 1]).map(() => '');
      lines[i + 1].trim().replace(/^\||\|$/g, '').split('|').forEach((rule, n) => {
        const r = rule.trim();
        align[n] = r.startsWith(':') && r.endsWith(':') ? 'center' : r.endsWith(':') ? 'right' : r.startsWith(':') ? 'left' : '';
      });
      const rows = [];
      i += 2;
      while (i < lines.length && lines[i].includes('|') && lines[i].trim()) { rows.push(mdCells(lines[i])); i++; }
      blocks.push({ t: 'table', head, align, rows });
      continue;
    }
    const body = [];
    while (i < lines.length && lines[i].trim() && (body.length === 0 || !mdStartsBlock(lines[i]))) {
      if (body.length && lines[i].includes('|') && i + 1 < lines.length && MD_TABLE_RULE.test(lines[i + 1])) break;
      body.push(lines[i].trim());
      i++;
    }
    blocks.push({ t: 'p', c: mdInline(body.join('\n')) });
  }
  return blocks;
}

function mdSafeHref(href) {
  const url = href.trim();
  return /^(https?:\/\/|mailto:)/i.test(url) ? url : null;
}

function mdFindClose(text, from, marker) {
  let at = text.indexOf(marker, from);
  while (at !== -1 && text[at - 1] === '\\') at = text.indexOf(marker, at + 1);
  return at;
}

// Inline tokens: {t: 'text'|'code', v} or {t: 'strong'|'em'|'del'|'link', c, href}.
function mdInline(text) {
  const out = [];
  let plain = '';
  const flush = () => { if (plain) { out.push({ t: 'text', v: plain }); plain = ''; } };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1])) { plain += text[i + 1]; i += 2; continue; }
    if (ch === '`') {
      let run = 1;
      while (text[i + run] === '`') run++;
      const close = text.indexOf('`'.repeat(run), i + run);
      if (close !== -1) {
        flush();
        out.push({ t: 'code', v: text.slice(i + run, close).replace(/^ (.+) $/, '$1') });
        i = close + run;
        continue;
      }
      plain += '`'.repeat(run); i += run; continue;
    }
    if (ch === '[') {
      const end = mdFindClose(text, i + 1, '](');
      const close = end === -1 ? -1 : text.indexOf(')', end + 2);
      if (end !== -1 && close !== -1 && !text.slice(i + 1, end).includes('\n')) {
        flush();
        const href = mdSafeHref(text.slice(end + 2, close).split(/\s+/)[0] || '');
        const inner = mdInline(text.slice(i + 1, end));
        out.push(href ? { t: 'link', href, c: inner } : { t: 'span', c: inner });
        i = close + 1;
        continue;
      }
    }
    if (ch === '<') {
      const m = /^<(https?:\/\/[^\s<>]+)>/.exec(text.slice(i));
      if (m) { flush(); out.push({ t: 'link', href: m[1], c: [{ t: 'text', v: m[1] }] }); i += m[0].length; continue; }
    }
    const pair = text.startsWith('**', i) ? ['**', 'strong'] : text.startsWith('__', i) ? ['__', 'strong']
      : text.startsWith('~~', i) ? ['~~', 'del'] : ch === '*' ? ['*', 'em']
        : ch === '_' && !/\w/.test(text[i - 1] || '') ? ['_', 'em'] : null;
    if (pair && text[i + pair[0].length] && !/\s/.test(text[i + pair[0].length])) {
      const close = mdFindClose(text, i + pair[0].length + 1, pair[0]);
      if (close !== -1 && !/\s/.test(text[close - 1]) && (pair[0] !== '_' || !/\w/.test(text[close + 1] || ''))) {
        flush();
        out.push({ t: pair[1], c: mdInline(text.slice(i + pair[0].length, close)) });
        i = close + pair[0].length;
        continue;
      }
    }
    plain += ch;
    i++;
  }
  flush();
  return out;
}

function mdInlineText(tokens) {
  let text = '';
  for (const tok of tokens) text += tok.c ? mdInlineText(tok.c) : tok.v;
  return text;
}

function mdInlineDom(tokens, parent) {
  for (const tok of tokens) {
    if (tok.t === 'text') parent.appendChild(document.createTextNode(tok.v));
    else if (tok.t === 'code') parent.appendChild(el('code', null, tok.v));
    else {
      const tag = { strong: 'strong', em: 'em', del: 'del', link: 'a', span: 'span' }[tok.t];
      const node = el(tag);
      if (tok.t === 'link') { node.href = tok.href; node.rel = 'noopener noreferrer nofollow'; node.target = '_blank'; }
      mdInlineDom(tok.c, node);
      parent.appendChild(node);
    }
  }
}

// Leaf blocks (paragraphs, headings, code, table cells) are the searchable elements, class "s".
function mdDom(blocks, parent) {
  for (const b of blocks) {
    if (b.t === 'p' || b.t === 'h') {
      const node = el(b.t === 'p' ? 'p' : 'h' + b.level, 's');
      mdInlineDom(b.c, node);
      parent.appendChild(node);
    } else if (b.t === 'code') {
      const pre = el('pre');
      const code = highlightInto(el('code', 's'), b.text, b.lang);
      if (b.lang) code.dataset.lang = b.lang;
      pre.appendChild(code);
      parent.appendChild(pre);
    } else if (b.t === 'hr') parent.appendChild(el('hr'));
    else if (b.t === 'quote') { const q = el('blockquote'); mdDom(b.blocks, q); parent.appendChild(q); }
    else if (b.t === 'list') {
      const list = el(b.ordered ? 'ol' : 'ul');
      if (b.ordered && b.start !== 1) list.start = b.start;
      for (const item of b.items) { const li = el('li'); mdDom(item, li); list.appendChild(li); }
      parent.appendChild(list);
    } else if (b.t === 'table') {
      const table = el('table');
      const row = (cells, tag) => {
        const tr = el('tr');
        cells.forEach((cell, n) => {
          const td = el(tag, 's');
          if (b.align[n]) td.style.textAlign = b.align[n];
          mdInlineDom(cell, td);
          tr.appendChild(td);
        });
        return tr;
      };
      const thead = el('thead');
      thead.appendChild(row(b.head, 'th'));
      table.appendChild(thead);
      const tbody = el('tbody');
      for (const cells of b.rows) tbody.appendChild(row(cells, 'td'));
      table.appendChild(tbody);
      parent.appendChild(table);
    }
  }
}

function mdSegments(blocks, out) {
  for (const b of blocks) {
    if (b.t === 'p' || b.t === 'h') out.push(mdInlineText(b.c));
    else if (b.t === 'code') out.push(b.text);
    else if (b.t === 'quote') mdSegments(b.blocks, out);
    else if (b.t === 'list') for (const item of b.items) mdSegments(item, out);
    else if (b.t === 'table') {
      for (const cell of b.head) out.push(mdInlineText(cell));
      for (const cells of b.rows) for (const cell of cells) out.push(mdInlineText(cell));
    }
  }
  return out;
}
