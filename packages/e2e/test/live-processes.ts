import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { sep } from 'node:path';

/** A live process: its pid and its arguments joined by spaces. */
export interface LiveProcess {
  readonly pid: number;
  readonly args: string;
}

/**
 * The live processes of a test's world: those working inside `dir` (their cwd is in it: agents,
 * their wrappers, headless runs, a monitor) and those naming one of `ids` (exit reports, the
 * pipeline driver, anything started with `--task <id>`). Read from /proc; a zombie has neither a
 * cwd nor arguments and is not counted, nor is this process.
 */
export async function processesOf(dir: string, ids: readonly string[]): Promise<LiveProcess[]> {
  // /proc gives resolved paths; the folder may have been named through a link (a TMPDIR that is one).
  const root = await realpath(dir).catch(() => dir);
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const found: LiveProcess[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replace(/\0$/, '').split('\0').join(' ');
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null);
    const inside = cwd !== null && (cwd === root || cwd.startsWith(root + sep));
    if (inside || (args !== '' && ids.some((id) => args.includes(id)))) found.push({ pid, args });
  }
  return found;
}
