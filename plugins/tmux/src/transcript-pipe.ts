import { escapeTmuxFormat } from './tmux-client.js';

/** One word for `sh`: single-quoted, with each `'` closed, escaped and reopened. */
export function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The shell command tmux `pipe-pane` runs for a transcript. tmux gives pipe-pane a shell string
 * (it has no argument-array form), so it is built only from what Orange controls — the node
 * executable, the writer script, the transcript path under $ORANGE_HOME (project names and ids
 * are validated) and a number — never from task text; every word is quoted, and `#` is doubled
 * because tmux expands formats in the command before the shell sees it.
 */
export function transcriptPipeCommand(node: string, writer: string, file: string, maxBytes: number): string {
  return escapeTmuxFormat(['exec', ...[node, writer, file, String(maxBytes)].map(shellWord)].join(' '));
}
