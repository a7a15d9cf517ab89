// Plain-text stand-ins for `@earendil-works/pi-tui`: components render their text to lines
// without styling; keyboard helpers match nothing (the bridge forwards no raw input).
import { plainTheme } from "./theme.mjs";

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g;
export const CURSOR_MARKER = "";

export function visibleWidth(text) {
  return [...String(text ?? "").replace(ANSI, "")].length;
}

export function truncateToWidth(text, width, ellipsis = "…") {
  const plain = String(text ?? "").replace(ANSI, "");
  const chars = [...plain];
  if (chars.length <= width) return plain;
  return chars.slice(0, Math.max(0, width - visibleWidth(ellipsis))).join("") + ellipsis;
}

export function wrapTextWithAnsi(text, width) {
  const lines = [];
  for (const raw of String(text ?? "").replace(ANSI, "").split("\n")) {
    let line = raw;
    while ([...line].length > width && width > 0) {
      const chars = [...line];
      lines.push(chars.slice(0, width).join(""));
      line = chars.slice(width).join("");
    }
    lines.push(line);
  }
  return lines;
}

export const Key = new Proxy({}, { get: (_t, key) => (typeof key === "string" ? (...args) => [key, ...args].join("+") : undefined) });
export const matchesKey = () => false;
export const isKeyRelease = () => false;
export const isKeyRepeat = () => false;
export const parseKey = () => undefined;
export const renderFakeCursor = (text) => text;
export function fuzzyFilter(items, query, getText = (item) => String(item)) {
  const q = String(query ?? "").toLowerCase();
  return items.filter((item) => getText(item).toLowerCase().includes(q));
}

class Component {
  invalidate() {}
  handleInput() {}
}

export class Text extends Component {
  constructor(text = "", paddingX = 0, paddingY = 0) {
    super();
    this.text = text;
    this.paddingX = paddingX;
    this.paddingY = paddingY;
  }
  setText(text) {
    this.text = text;
  }
  render(width) {
    const pad = " ".repeat(this.paddingX);
    const body = wrapTextWithAnsi(this.text, Math.max(1, width - 2 * this.paddingX)).map((l) => pad + l);
    const blank = Array(this.paddingY).fill("");
    return String(this.text ?? "") === "" ? [] : [...blank, ...body, ...blank];
  }
}

export class TruncatedText extends Text {}

export class Markdown extends Text {
  constructor(text = "", paddingX = 0, paddingY = 0) {
    super(text, paddingX, paddingY);
  }
}

export class Spacer extends Component {
  constructor(lines = 1) {
    super();
    this.lines = lines;
  }
  render() {
    return Array(this.lines).fill("");
  }
}

export class Container extends Component {
  constructor() {
    super();
    this.children = [];
  }
  addChild(child) {
    this.children.push(child);
  }
  removeChild(child) {
    this.children = this.children.filter((c) => c !== child);
  }
  clear() {
    this.children = [];
  }
  render(width) {
    return this.children.flatMap((child) => child?.render?.(width) ?? []);
  }
}

export class Box extends Container {
  constructor(paddingX = 0, paddingY = 0) {
    super();
    this.paddingX = paddingX;
    this.paddingY = paddingY;
  }
  setBgFn() {}
}

export class Input extends Component {
  constructor() {
    super();
    this.value = "";
  }
  getValue() {
    return this.value;
  }
  setValue(value) {
    this.value = value;
  }
  render() {
    return [this.value];
  }
}

export class Editor extends Input {
  getText() {
    return this.value;
  }
  setText(text) {
    this.value = text;
  }
}

export class SelectList extends Component {
  constructor(items = []) {
    super();
    this.items = items;
  }
  render() {
    return this.items.map((item) => String(item.label ?? item.value ?? item));
  }
}

export class SettingsList extends SelectList {}

export class Loader extends Text {}
export class CancellableLoader extends Text {}
export class Image extends Component {
  render() {
    return [];
  }
}
export class TUI {}
export const getEditorKeybindings = () => ({ matches: () => false });
export { plainTheme as defaultTheme };
