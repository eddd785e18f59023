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

export interface ProcessesEndOptions {
  /** How long they may take to end (20 s unless said). */
  readonly timeoutMs?: number;
  /** Scans in a row, 100 ms apart, that must find none (3): an exit report can start just after a scan found none. */
  readonly clearScans?: number;
  /** Done to those still running, at most every `sweepEveryMs` (kill them, cancel their tasks, kill a new tmux server). */
  readonly sweep?: (left: readonly LiveProcess[]) => Promise<void> | void;
  readonly sweepEveryMs?: number;
}

/**
 * Waits until no process of the world (`processesOf(dir, ids)`) runs, and returns those still
 * running at the deadline: empty when the world ended. A cleanup fails the test with what it returns.
 */
export async function processesEnd(dir: string, ids: readonly string[], options: ProcessesEndOptions = {}): Promise<LiveProcess[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  const sweepEveryMs = options.sweepEveryMs ?? 1_000;
  let clearScans = 0;
  let nextSweep = Date.now() + sweepEveryMs;
  for (;;) {
    const left = await processesOf(dir, ids);
    clearScans = left.length === 0 ? clearScans + 1 : 0;
    if (clearScans >= (options.clearScans ?? 3)) return [];
    if (Date.now() > deadline) return left;
    if (left.length > 0 && options.sweep && Date.now() >= nextSweep) {
      await options.sweep(left);
      nextSweep = Date.now() + sweepEveryMs;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
