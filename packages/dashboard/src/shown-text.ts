import { inlineText } from '@orange/core';

// The dashboard's one sanitiser: every string that comes from a task, an agent or a plugin is
// put on screen through `shown` (one line) or `shownPane` (a captured agent window).

/** `text` as one inert line (`inlineText`), cut to `max` columns with an ellipsis, by code point. */
export function shown(text: string, max = Number.POSITIVE_INFINITY): string {
  const safe = inlineText(text);
  if (safe.length <= max) return safe;
  if (max <= 1) return max === 1 ? '…' : '';
  let kept = '';
  for (const point of safe) {
    if (kept.length + point.length > max - 1) break;
    kept += point;
  }
  return `${kept}…`;
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

