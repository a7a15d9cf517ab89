// What an entry shows, as a list of parts ({k: kind, ...}). Parts become DOM (partsDom) and the
// texts the search looks through (partsSegments), from the same list: one segment per element
// of class "s", in document order.

const CLIP_LINES = 12;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BUILTIN_TOOLS = new Set(['bash', 'read', 'write', 'edit', 'ls', 'grep', 'find']);

function str(value) { return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value); }

function json(value) {
  try { return JSON.stringify(value, null, 2) ?? ''; } catch (error) { return String(value); }
}

function contentParts(content, parts) {
  if (typeof content === 'string') { if (content.trim()) parts.push({ k: 'md', text: content }); return parts; }
  if (!Array.isArray(content)) return parts;
  for (const block of content) {
    if (!block) continue;
    if (block.type === 'text' && str(block.text).trim()) parts.push({ k: 'md', text: str(block.text) });
    else if (block.type === 'image') parts.push({ k: 'img', block });
  }
  return parts;
}

function outputParts(content, isError, parts, lang) {
  const text = textOf(content).replace(/\s+$/, '');
  if (text) parts.push({ k: 'pre', text, cls: 'tool-output' + (isError ? ' error-text' : ''), clip: true, lang: isError ? null : lang });
  if (Array.isArray(content)) for (const block of content) if (block && block.type === 'image') parts.push({ k: 'img', block });
  return parts;
}

function toolTitle(name, args) {
  const a = args && typeof args === 'object' ? args : {};
  const path = str(a.path || a.file_path);
  if (name === 'bash' && typeof a.command === 'string') return '$ ' + a.command;
  if (name === 'read' && path) {
    const offset = Number(a.offset) || 0;
    const limit = Number(a.limit) || 0;
    const range = offset || limit ? ':' + (offset || 1) + (limit ? '-' + ((offset || 1) + limit - 1) : '') : '';
    return 'read ' + path + range;
  }
  if (['write', 'edit', 'ls'].includes(name)) return name + ' ' + (path || '.');
  if ((name === 'grep' || name === 'find') && typeof a.pattern === 'string') return name + ' ' + a.pattern + (path ? ' in ' + path : '');
  const compact = json(a).replace(/\s+/g, ' ');
  return name + (compact && compact !== '{}' ? ' ' + (compact.length > 120 ? compact.slice(0, 119) + '…' : compact) : '');
}

function toolPart(name, args, result, extraBody) {
  const state = !result ? 'pending' : result.isError ? 'error' : 'ok';
  const body = extraBody ? extraBody.slice() : [];
  const path = args && typeof args === 'object' ? str(args.path || args.file_path) : '';
  if (name === 'write' && args && typeof args.content === 'string') body.push({ k: 'pre', text: args.content, clip: true, lang: path });
  else if (!BUILTIN_TOOLS.has(name) && args && Object.keys(args).length) body.push({ k: 'pre', text: json(args), cls: 'args' });
  const diff = result && result.details && typeof result.details.diff === 'string' ? result.details.diff : '';
  if (diff && !result.isError) body.push({ k: 'diff', text: diff });
  else if (name === 'edit' && args && Array.isArray(args.edits) && !result) body.push({ k: 'pre', text: json(args.edits) });
  if (result) outputParts(result.content, result.isError, body, name === 'read' ? path : null);
  const status = state === 'pending' ? 'no result' : state === 'error' ? 'error' : 'done';
  return { k: 'details', cls: 'tool ' + state, kind: 'tool',
    summary: [{ k: 'line', text: toolTitle(name, args), cls: 'tool-title' }, { k: 'note', text: status, cls: 'tool-status' }], body };
}

function assistantParts(msg) {
  const parts = [];
  for (const block of Array.isArray(msg.content) ? msg.content : []) {
    if (!block) continue;
    if (block.type === 'text' && str(block.text).trim()) parts.push({ k: 'md', text: str(block.text) });
    else if (block.type === 'thinking' && str(block.thinking).trim()) {
      parts.push({ k: 'details', cls: 'thinking', kind: 'thinking', summary: [{ k: 'note', text: 'Thinking' }],
        body: [{ k: 'md', text: str(block.thinking) }] });
    } else if (block.type === 'toolCall') {
      parts.push(toolPart(str(block.name), block.arguments, resultsByCall.get(block.id) || null));
    } else if (block.type === 'image') parts.push({ k: 'img', block });
  }
  if (msg.stopReason === 'error') parts.push({ k: 'line', text: 'Error: ' + (str(msg.errorMessage) || 'unknown error'), cls: 'error-text' });
  else if (msg.stopReason === 'aborted') parts.push({ k: 'line', text: 'Aborted', cls: 'error-text' });
  return parts;
}

function summaryPart(title, text) {
  return { k: 'details', cls: 'summary-body', kind: 'summary', summary: [{ k: 'note', text: title, cls: 'custom-label' }],
    body: [{ k: 'md', text: str(text) }] };
}

// A recorded system prompt: its instruction text, its sections (null: removed) and tool changes.
function systemPart(msg) {
  const sections = msg.sections && typeof msg.sections === 'object' ? Object.entries(msg.sections) : [];
  const added = Array.isArray(msg.toolsAdded) ? msg.toolsAdded : [];
  const removed = Array.isArray(msg.toolsRemoved) ? msg.toolsRemoved : [];
  const body = [];
  if (str(msg.content).trim()) body.push({ k: 'pre', text: str(msg.content), clip: true });
  for (const [name, text] of sections) {
    body.push({ k: 'note', text: name, cls: 'custom-label' });
    body.push(text === null ? { k: 'line', text: '(removed)' } : { k: 'pre', text: str(text), clip: true });
  }
  for (const tool of added) body.push({ k: 'line', text: '+ ' + str(tool && tool.name) + ': ' + preview(tool && tool.description, 200) });
  for (const tool of removed) body.push({ k: 'line', text: '- ' + str(tool && tool.name) });
  const counts = [sections.length && sections.length + ' sections', added.length && '+' + added.length + ' tools',
    removed.length && '-' + removed.length + ' tools'].filter(Boolean).join(', ');
  return { k: 'details', cls: 'summary-body', kind: 'system', summary: [{ k: 'note', text: 'System prompt' + (counts ? ' · ' + counts : ''),
    cls: 'custom-label' }], body };
}

function entryParts(entry) {
  const msg = messageOf(entry);
  const kind = kindOf(entry);
  if (msg && kind === 'user') return contentParts(msg.content, []);
  if (msg && kind === 'assistant') return assistantParts(msg);
  if (msg && kind === 'toolResult') return [toolPart(str(msg.toolName) || 'tool', null, msg)];
  if (msg && kind === 'bash') {
    const code = msg.exitCode;
    const result = { isError: msg.cancelled || (code !== 0 && code !== undefined && code !== null),
      content: [{ type: 'text', text: str(msg.output) + (msg.cancelled ? '\n(cancelled)' : code ? '\n(exit code ' + code + ')' : '') }] };
    return [toolPart('bash', { command: str(msg.command) }, result)];
  }
  if (kind === 'custom') {
    const source = msg || entry;
    return contentParts(source.content, [{ k: 'note', text: '[' + str(source.customType) + ']', cls: 'custom-label' }]);
  }
  if (msg && kind === 'system') return [systemPart(msg)];
  if (kind === 'compaction') {
    const before = Number((msg || entry).tokensBefore) || 0;
    return [summaryPart('Compaction' + (before ? ' · ' + before.toLocaleString('en-US') + ' tokens before' : ''), (msg || entry).summary)];
  }
  if (kind === 'branchSummary') return [summaryPart('Branch summary', (msg || entry).summary)];
  if (kind === 'modelChange') return [{ k: 'line', text: 'Model: ' + [entry.provider, entry.modelId].filter(Boolean).join('/') }];
  if (kind === 'thinking') return [{ k: 'line', text: 'Thinking level: ' + str(entry.thinkingLevel) }];
  if (kind === 'sessionInfo') return [{ k: 'line', text: 'Session name: ' + str(entry.name) }];
  if (kind === 'label') return [{ k: 'line', text: (entry.label ? 'Label "' + str(entry.label) + '"' : 'Label removed') + ' on ' + str(entry.targetId) }];
  if (kind === 'contextEdit') {
    return [{ k: 'line', text: 'Context edit: ' + (entry.replacement ? 'replaced' : 'omitted') + ' ' + str(entry.targetId) }];
  }
  if (kind === 'usage') {
    const u = entry.usage || {};
    return [{ k: 'line', text: 'Usage (' + str(entry.kind) + ') ' + str(entry.model) + ': ↑' + fmtTokens(u.input) + ' ↓' + fmtTokens(u.output) }];
  }
  return [{ k: 'note', text: '[' + str(entry.type) + (entry.customType ? ': ' + str(entry.customType) : '') + ']', cls: 'custom-label' },
    { k: 'pre', text: json(entry.data !== undefined ? entry.data : entry), clip: true }];
}

function imageDom(block) {
  const mime = str(block.mimeType);
  const data = str(block.data);
  if (block.omitted || !IMAGE_TYPES.has(mime) || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
    return el('div', 'omitted muted', '[image' + (mime ? ': ' + mime : '') + ' not embedded]');
  }
  const img = el('img', 'inline');
  img.alt = 'image';
  img.src = 'data:' + mime + ';base64,' + data;
  return img;
}

function partsDom(parts, parent) {
  for (const part of parts) {
    if (part.k === 'md') { const box = el('div', 'md'); mdDom(mdBlocks(part.text), box); parent.appendChild(box); }
    else if (part.k === 'line') parent.appendChild(el('div', 's ' + (part.cls || ''), part.text));
    else if (part.k === 'note') parent.appendChild(el('span', part.cls || 'muted', part.text));
    else if (part.k === 'img') parent.appendChild(imageDom(part.block));
    else if (part.k === 'pre') {
      const pre = part.lang ? highlightInto(el('pre', 's ' + (part.cls || '')), part.text, part.lang) : el('pre', 's ' + (part.cls || ''), part.text);
      parent.appendChild(pre);
      const lines = part.text.split('\n').length;
      if (part.clip && lines > CLIP_LINES) {
        pre.classList.add('clipped');
        const more = el('button', 'more', 'Show all ' + lines + ' lines');
        more.type = 'button';
        more.addEventListener('click', () => setClipped(pre, !pre.classList.contains('clipped')));
        parent.appendChild(more);
      }
    } else if (part.k === 'diff') {
      const pre = el('pre', 's diff');
      part.text.split('\n').forEach((line, n) => {
        if (n) pre.appendChild(document.createTextNode('\n'));
        pre.appendChild(el('span', line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx', line));
      });
      parent.appendChild(pre);
    } else if (part.k === 'details') {
      const box = el('details', part.cls);
      box.dataset.kind = part.kind;
      const summary = el('summary');
      partsDom(part.summary, summary);
      box.appendChild(summary);
      partsDom(part.body, box);
      parent.appendChild(box);
    }
  }
  return parent;
}

function setClipped(pre, clipped) {
  pre.classList.toggle('clipped', clipped);
  const more = pre.nextElementSibling;
  if (more && more.classList.contains('more')) {
    more.textContent = clipped ? 'Show all ' + pre.textContent.split('\n').length + ' lines' : 'Show less';
  }
}

function partsSegments(parts, out) {
  for (const part of parts) {
    if (part.k === 'md') mdSegments(mdBlocks(part.text), out);
    else if (part.k === 'line' || part.k === 'pre' || part.k === 'diff') out.push(part.text);
    else if (part.k === 'details') { partsSegments(part.summary, out); partsSegments(part.body, out); }
  }
  return out;
}
