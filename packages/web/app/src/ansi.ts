import { blockText } from './shown-text';

// Every escape family a terminal acts on: CSI (7- and 8-bit), OSC / DCS / APC / PM / SOS strings
// up to their terminator, charset designations, and the two-character escapes.
const ESCAPES = new RegExp(
  [
    String.raw`\u001b\[[0-?]*[ -/]*[@-~]`,
    String.raw`\u009b[0-?]*[ -/]*[@-~]`,
    String.raw`\u001b\][\s\S]*?(?:\u0007|\u001b\\|\u009c|$)`,
    String.raw`\u001b[P_^X][\s\S]*?(?:\u001b\\|\u009c|$)`,
    String.raw`\u001b[()*+\-./][\s\S]?`,
    String.raw`\u001b[ #%][\s\S]?`,
    String.raw`\u001b[\s\S]?`,
  ].join('|'),
  'g',
);

/** `text` without terminal escape sequences (colours, cursor moves, titles, …). */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, '');
}

/**
 * A recorded terminal session as readable text: escapes stripped, a line overwritten with `\r`
 * (a progress bar, a spinner) shown as it was left, backspaces applied, and whatever control is
 * left made visible.
 */
export function transcriptText(raw: string): string {
  const lines = stripAnsi(raw).replace(/\r+\n/g, '\n').split('\n');
  return blockText(lines.map(overwritten).join('\n'));
}

function overwritten(line: string): string {
  let shown = line;
  if (shown.includes('\r')) {
    // Each `\r` starts over: later text covers earlier text only as far as it reaches.
    shown = shown.split('\r').reduce((under, over) => over + under.slice(over.length), '');
  }
  if (shown.includes('\b')) {
    const out: string[] = [];
    for (const char of shown) {
      if (char === '\b') out.pop();
      else out.push(char);
    }
    shown = out.join('');
  }
  return shown;
}
