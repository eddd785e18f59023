import { inlineText } from '@orange/core';
import stringWidth from 'string-width';

// The dashboard's one sanitiser: every string that comes from a task, an agent or a plugin is
// put on screen through `shown` (one line) or `shownPane` (a captured agent window).

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The columns `text` takes on a terminal: east-asian wide characters and emoji take 2 (string-width, as ink measures). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/**
 * `text` as one inert line (`inlineText`), cut to `max` columns with an ellipsis. Columns are
 * display columns: a wide character counts 2 and is never cut in half; an emoji sequence is kept whole.
 */
export function shown(text: string, max = Number.POSITIVE_INFINITY): string {
  const safe = inlineText(text);
  if (max === Number.POSITIVE_INFINITY || displayWidth(safe) <= max) return safe;
  if (max <= 1) return max === 1 ? '…' : '';
  let kept = '';
  let width = 0;
  for (const { segment } of graphemes.segment(safe)) {
    const w = displayWidth(segment);
    if (width + w > max - 1) break;
    kept += segment;
    width += w;
  }
  return `${kept}…`;
}

/** `text` (already shown) padded with spaces to `width` display columns. */
export function padded(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** `text` (already shown) in lines of at most `width` display columns, broken at spaces; later lines start with `indent` spaces. A word wider than a line stays whole (the line is cut where it is drawn). */
export function wrapped(text: string, width: number, indent = 0): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const room = Math.max(1, width - (lines.length === 0 ? 0 : indent));
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && displayWidth(next) > room) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(indent)}${l}`));
}

// A complete SGR sequence (colours and text attributes) and nothing else: the only escape a pane
// capture may keep. Every other control (cursor moves, OSC titles, clipboard writes) is made inert.
const SGR = /\u001b\[[0-9;:]*m/g;

/**
 * One captured line of an agent's window: SGR colour sequences kept (or dropped with `colour`
 * false, e.g. under NO_COLOR), every other control character made visible and inert, and the line
 * ended with a reset so a colour cannot leak into the next one.
 */
export function shownPaneLine(line: string, colour: boolean): string {
  const parts: string[] = [];
  let last = 0;
  let coloured = false;
  for (const match of line.matchAll(SGR)) {
    parts.push(inlineText(line.slice(last, match.index)));
    if (colour) {
      parts.push(match[0]);
      coloured = true;
    }
    last = match.index + match[0].length;
  }
  parts.push(inlineText(line.slice(last)));
  return parts.join('') + (coloured ? '\u001b[0m' : '');
}

