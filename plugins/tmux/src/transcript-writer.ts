/**
 * Keeps an agent's terminal output: tmux `pipe-pane` feeds the pane's output to this process,
 * which appends it to the transcript file and, once the file reaches the cap, moves it to
 * `<file>.1` (replacing the older part) and starts a new one. So one spawn never takes more
 * than twice the cap.
 * Usage: node transcript-writer.js <file> <maxBytes>
 * Node builtins only: one runs beside every agent.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

// O_NOFOLLOW: a link put where the transcript goes is refused, never written through.
const FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW;

function main(): void {
  const [file, cap] = process.argv.slice(2);
  const max = Number(cap);
  if (!file || !Number.isInteger(max) || max <= 0) {
    process.stderr.write('usage: transcript-writer <file> <maxBytes>\n');
    process.exit(2);
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Transcripts may hold whatever an agent printed (tokens, keys): readable by the user only.
  let fd = openSync(file, FLAGS, 0o600);
  let size = fstatSync(fd).size;
  process.stdin.on('data', (chunk: Buffer) => {
    try {
      let offset = 0;
      while (offset < chunk.length) {
        if (size >= max) {
          closeSync(fd);
          renameSync(file, `${file}.1`);
          fd = openSync(file, FLAGS, 0o600);
          size = 0;
        }
        const written = writeSync(fd, chunk, offset, Math.min(chunk.length - offset, max - size));
        size += written;
        offset += written;
      }
    } catch {
      // The task was deleted under us (or the disk is full): a transcript is never worth an error in the pane.
      process.exit(0);
    }
  });
  process.stdin.on('end', () => closeSync(fd));
  process.stdin.on('error', () => process.exit(0));
}

main();
