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
  const path = shellWord(fifo);
  // Never `cat > fifo` alone: opening a FIFO to write waits for a reader, and a wrapper killed
  // before tmux's shell got there (SIGKILL, a starved CPU) leaves none, so the shell waited for
  // ever, outliving the tmux server. Opened to read and write first (which never waits), the
  // write end opens at once; that first descriptor is then closed, so a dead reader means SIGPIPE
  // at the first write and the pane's end means EOF, as with a live one. No FIFO left (the wrapper
  // is done with it): nothing to copy.
  return escapeTmuxFormat(`[ -p ${path} ] && exec 3<>${path} && exec cat >${path} 3<&-`);
}
