/**
 * The page's one sanitiser. Preact renders strings as text nodes, so no task text can become
 * markup; what remains is text that hides or reorders itself (bidi overrides, zero-width
 * characters) or carries terminal controls. As the core's `terminal-text.ts` does for terminals,
 * every such character is replaced with a visible stand-in, so nothing is silently lost:
 * C0 controls → control pictures (`\x1b` → `␛`), DEL → `␡`, C1 / bidi / invisible ones → `\uXXXX`.
 * Joiners (U+200C/U+200D) stay: emoji and several scripts need them.
 */

const LINE_BREAK = /\r\n|[\n\v\f\u0085]/g;
const BEYOND_C0 = String.raw`\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff`;
const UNSAFE = new RegExp(String.raw`[\u0000-\u001f${BEYOND_C0}]`, 'g');

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text for one line (a branch, a summary, a table cell): line breaks as `⏎`, other controls visible. */
export function inlineText(text: string): string {
  return text.replace(LINE_BREAK, '\u23ce').replace(UNSAFE, visible);
}

/** Text for several lines (TASK.md, a transcript, a diff): keeps `\n` and tabs, makes every other control visible. */
export function blockText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, (char) => (char === '\n' || char === '\t' ? char : visible(char)));
}

/** Any value from a task as one line of text: strings as they are, the rest as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return inlineText(value);
  if (value === undefined) return '';
  try {
    return inlineText(JSON.stringify(value) ?? String(value));
  } catch {
    return inlineText(String(value));
  }
}

/** A link target only when it is http(s); anything else (javascript:, data:, relative) is not a link. */
export function safeHref(href: string | null | undefined): string | null {
  if (!href || !/^https?:\/\//i.test(href.trim())) return null;
  try {
    const url = new URL(href.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
