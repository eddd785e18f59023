import { shellWord } from './shell-word.js';
import { escapeTmuxFormat } from './tmux-escape.js';

/**
 * The shell command tmux `pipe-pane` runs for a transcript: `cat` into the FIFO the agent wrapper
 * reads. tmux gives pipe-pane a shell string (it has no argument-array form), so it is built only
 * from what Orange controls — the FIFO's path under $ORANGE_HOME (project names and ids are
 * validated) — never from task text; the path is quoted, and `#` is doubled because tmux expands
 * formats in the command before the shell sees it.
 */
export function transcriptPipeCommand(fifo: string): string {
  return escapeTmuxFormat(`exec cat > ${shellWord(fifo)}`);
}
