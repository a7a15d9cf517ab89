// Code colouring for fenced blocks and files the read/write tools show: a small tokenizer per
// language family (comments, strings, numbers, keywords, calls, types), spans of text only, so
// the text and the search stay exactly the same.

const SYNTAX_LIMIT = 200000;
const KEYWORDS = {
  python: 'and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield match case self',
  js: 'async await break case catch class const continue debugger default delete do else export extends false finally for from function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while with yield interface type enum implements private public protected readonly',
  go: 'break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false',
  rust: 'as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while None Some Ok Err',
  c: 'auto break case char const continue default do double else enum extern float for goto if inline int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class namespace template typename public private protected virtual new delete this true false nullptr bool using std',
  java: 'abstract boolean break byte case catch char class const continue default do double else enum extends final finally float for if implements import instanceof int interface long native new null package private protected public return short static super switch synchronized this throw throws true false try void volatile while var',
  shell: 'if then else elif fi for while until do done case esac function in return local export echo exit set unset readonly shift source cd',
  css: 'important inherit initial unset auto none',
  json: 'true false null',
};
const HASH_COMMENTS = new Set(['python', 'shell', 'yaml', 'toml', 'ruby']);
const LANG_ALIASES = {
  py: 'python', python: 'python', js: 'js', javascript: 'js', ts: 'js', typescript: 'js', tsx: 'js', jsx: 'js', mjs: 'js',
  cjs: 'js', go: 'go', rs: 'rust', rust: 'rust', c: 'c', h: 'c', cpp: 'c', cc: 'c', hpp: 'c', 'c++': 'c', cs: 'java',
  java: 'java', kt: 'java', kotlin: 'java', swift: 'java', sh: 'shell', bash: 'shell', zsh: 'shell', shell: 'shell',
  console: 'shell', css: 'css', scss: 'css', json: 'json', jsonl: 'json', yaml: 'yaml', yml: 'yaml', toml: 'toml', rb: 'ruby',
  ruby: 'ruby',
};
const keywordSets = new Map();

function languageOf(name) {
  const key = str(name).toLowerCase();
  return LANG_ALIASES[key] || LANG_ALIASES[key.split('.').pop()] || null;
}

function syntaxPattern(lang) {
  const comment = HASH_COMMENTS.has(lang) ? '#.*' : lang === 'json' ? '(?!)' : lang === 'css' ? '/\\*[\\s\\S]*?\\*/' : '//.*|/\\*[\\s\\S]*?\\*/';
  const strings = (lang === 'python' ? '"""[\\s\\S]*?"""|\'\'\'[\\s\\S]*?\'\'\'|' : '') + (lang === 'js' || lang === 'go' ? '`(?:\\\\[\\s\\S]|[^`\\\\])*`|' : '')
    + '"(?:\\\\.|[^"\\\\\\n])*"|\'(?:\\\\.|[^\'\\\\\\n])*\'';
  return new RegExp('(' + comment + ')|(' + strings + ')|(\\b(?:0[xX][0-9a-fA-F]+|\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\b)|([A-Za-z_$][\\w$]*)(?=(\\s*\\()?)', 'g');
}

// Fill ``node`` with ``text``, coloured when the language is known (else plain text).
function highlightInto(node, text, langName) {
  const lang = languageOf(langName);
  if (!lang || text.length > SYNTAX_LIMIT) { node.textContent = text; return node; }
  if (!keywordSets.has(lang)) keywordSets.set(lang, new Set((KEYWORDS[lang] || '').split(' ')));
  const keywords = keywordSets.get(lang);
  const pattern = syntaxPattern(lang);
  let cursor = 0;
  let m;
  const push = (until) => { if (until > cursor) node.appendChild(document.createTextNode(text.slice(cursor, until))); };
  while ((m = pattern.exec(text))) {
    if (!m[0]) { pattern.lastIndex++; continue; }
    const cls = m[1] ? 'tok-c' : m[2] ? 'tok-s' : m[3] ? 'tok-n' : keywords.has(m[4]) ? 'tok-k' : m[5] ? 'tok-f'
      : /^[A-Z][a-z0-9]/.test(m[4]) && lang !== 'shell' ? 'tok-t' : null;
    if (!cls) continue;
    push(m.index);
    node.appendChild(el('span', cls, m[0]));
    cursor = m.index + m[0].length;
  }
  push(text.length);
  return node;
}
