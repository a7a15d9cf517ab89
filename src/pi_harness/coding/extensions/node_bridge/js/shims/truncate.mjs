// Pi's truncation helpers (same names, limits and result fields), used by the shims and
// re-exported from the pi-coding-agent stand-in.
export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;

function truncation(content, kept, by, options) {
  const all = content.split("\n");
  return {
    content: kept,
    truncated: by !== null,
    truncatedBy: by,
    totalLines: all.length,
    totalBytes: Buffer.byteLength(content),
    outputLines: kept === "" ? 0 : kept.split("\n").length,
    outputBytes: Buffer.byteLength(kept),
    lastLinePartial: false,
    firstLineExceedsLimit: false,
    maxLines: options.maxLines,
    maxBytes: options.maxBytes,
  };
}

function limits(options = {}) {
  return { maxLines: options.maxLines ?? DEFAULT_MAX_LINES, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
}

export function truncateHead(content, options) {
  const o = limits(options);
  const lines = content.split("\n");
  const out = [];
  let bytes = 0;
  for (const line of lines) {
    if (out.length >= o.maxLines) return truncation(content, out.join("\n"), "lines", o);
    const size = Buffer.byteLength(line) + (out.length ? 1 : 0);
    if (bytes + size > o.maxBytes) {
      const result = truncation(content, out.join("\n"), "bytes", o);
      result.firstLineExceedsLimit = out.length === 0;
      return result;
    }
    out.push(line);
    bytes += size;
  }
  return truncation(content, content, null, o);
}

export function truncateTail(content, options) {
  const o = limits(options);
  const lines = content.split("\n");
  const out = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (out.length >= o.maxLines) return truncation(content, out.join("\n"), "lines", o);
    const size = Buffer.byteLength(lines[i]) + (out.length ? 1 : 0);
    if (bytes + size > o.maxBytes) return truncation(content, out.join("\n"), "bytes", o);
    out.unshift(lines[i]);
    bytes += size;
  }
  return truncation(content, content, null, o);
}

export function truncateLine(line, maxChars = 500) {
  if (line.length <= maxChars) return { text: line, wasTruncated: false };
  return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}

