/**
 * Text from tasks, agents, plugins and logs is data: on a terminal it must not be able to set the
 * window title, clear the screen, write the clipboard (OSC 52), move the cursor or reorder what
 * is shown. Each function here makes such text printable by replacing every character a terminal
 * would act on with a visible stand-in, so nothing is silently lost:
 *
 * - C0 controls and ESC → their Unicode control pictures (`\x1b` → `␛`, `\x07` → `␇`, `\r` → `␍`,
 *   backspace → `␈`), DEL → `␡`. With ESC gone, whatever followed it (`[2J`, `]0;title`) is
 *   plain text, so every escape family (CSI, OSC, DCS, APC, …) is defused at its introducer.
 * - C1 controls (U+0080–U+009F, e.g. the 8-bit CSI `\x9b`), bidi controls (U+061C, U+200E/F,
 *   U+202A–U+202E, U+2066–U+2069), invisible characters that can disguise text (U+200B,
 *   U+2060–U+2064, U+FEFF, U+180E, U+00AD) and the line/paragraph separators U+2028/U+2029 →
 *   their code as `\u009b`. Joiners (U+200C/U+200D) stay: emoji and several scripts need them.
 * - Line breaks: `inlineText` shows `\n`, `\r\n`, VT, FF and NEL as `⏎` and a tab as `␉`;
 *   `blockText` keeps `\n` (`\r\n` becomes `\n`) and `\t`.
 */

const LINE_BREAK = /\r\n|[\n\v\f\u0085]/g;
// DEL, C1, and the characters that hide or reorder text (see above), as a regex class body.
const BEYOND_C0 = String.raw`\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff`;
const UNSAFE = new RegExp(String.raw`[\u0000-\u001f${BEYOND_C0}]`, 'g');
// JSON.stringify escapes C0 inside strings itself and emits it raw only as layout (newlines, spaces).
const UNSAFE_IN_JSON = new RegExp(`[${BEYOND_C0}]`, 'g');

function codeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return codeEscape(char);
}

/** Text for one line or one table cell: line breaks as `⏎`, tabs as `␉`, controls and escapes visible and inert. */
export function inlineText(text: string): string {
  return text.replace(LINE_BREAK, '\u23ce').replace(UNSAFE, visible);
}

/** Text for several lines (a TASK.md body): keeps newlines and tabs, makes every other control visible and inert. */
export function blockText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, (char) => (char === '\n' || char === '\t' ? char : visible(char)));
}

/** A summary as stored: every run of whitespace (newlines included) folded into one space, trimmed. */
export function oneLineSummary(text: string): string {
  return text.replace(/[\s\u0085]+/g, ' ').trim();
}

/**
 * `JSON.stringify` whose output is also safe on a terminal: the characters it leaves raw (DEL,
 * C1, bidi and invisible ones; it already escapes C0) are written as `\uXXXX` escapes, which
 * only ever occur inside JSON strings, so every string parses back exactly as it was.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(UNSAFE_IN_JSON, codeEscape);
}
