import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { sep } from 'node:path';

/** One process as the operating system reports it. */
export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** Session id; -1 where the system does not report one (outside Linux). */
  readonly sid: number;
  /** Start time as the system reports it ('' where unknown): tells a process from a later one that reused its pid. */
  readonly start: string;
  /** Exited but not yet reaped by its parent: no longer running anything. */
  readonly zombie: boolean;
}

/** Runs a command by argument array; null when it cannot be run at all (not installed). */
function output(file: string, args: readonly string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      // lsof exits 1 when some of what it was asked about had no match; its output still counts.
      resolve(code === 'ENOENT' ? null : String(stdout));
    });
  });
}

/** `/proc/<pid>/stat` → entry; the command name is in parentheses and may itself contain spaces or `)`. */
function parseProcStat(text: string): ProcessEntry | null {
  const close = text.lastIndexOf(')');
  const pid = Number.parseInt(text, 10);
  if (close < 0 || !Number.isInteger(pid)) return null;
  const rest = text.slice(close + 2).split(' ');
  // Fields after the name: state(3) ppid(4) pgrp(5) session(6) … starttime(22).
  const [state, ppid, pgid, sid] = rest;
  return { pid, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), start: rest[19] ?? '', zombie: state === 'Z' || state === 'X' };
}

/** What `read` gives, or null when it throws: a /proc entry of a process gone meanwhile, or another user's. */
function fromProc<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** Every process on the machine: `/proc` on Linux (no child process), `ps` elsewhere. */
export async function listProcesses(): Promise<ProcessEntry[]> {
  if (process.platform === 'linux') {
    // Read synchronously: hundreds of tiny kernel files, each an open, a read and a close. Through
    // promises each takes four trips to the thread pool: on a busy fleet the monitor spent more CPU
    // on those trips than on the reads (a scan of 750 processes blocks the loop for ~10 ms).
    const entries: ProcessEntry[] = [];
    for (const name of fromProc(() => readdirSync('/proc')) ?? []) {
      if (!/^\d+$/.test(name)) continue;
      const entry = fromProc(() => parseProcStat(readFileSync(`/proc/${name}/stat`, 'utf8')));
      if (entry) entries.push(entry);
    }
    return entries;
  }
  const text = (await output('ps', ['-A', '-o', 'pid=', '-o', 'ppid=', '-o', 'pgid=', '-o', 'stat='])) ?? '';
  const entries: ProcessEntry[] = [];
  for (const line of text.split('\n')) {
    const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
    if (!pid || !ppid || !pgid) continue;
    entries.push({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), sid: -1, start: '', zombie: (stat ?? '').startsWith('Z') });
  }
  return entries;
}

/** True when process `pid` exists (EPERM: it does, as another user's). Says nothing about a reused pid (see `processStart`). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When process `pid` started, as the system reports it (`/proc/<pid>/stat` on Linux, `ps -o lstart`
 * elsewhere): equal for one process, different for a later one that reused its pid. Null when no
 * such process runs; '' when the system cannot tell.
 */
export async function processStart(pid: number): Promise<string | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (process.platform === 'linux') {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
    if (text === null) return null;
    const entry = parseProcStat(text);
    return entry === null || entry.zombie ? null : entry.start;
  }
  const text = await output('ps', ['-o', 'lstart=', '-p', String(pid)]);
  if (text === null) return '';
  return text.trim() === '' ? null : text.trim();
}

/** The process `pid` and every process it descends from (so a caller never stops itself or its shell). */
export function withAncestors(table: readonly ProcessEntry[], pid: number = process.pid): Set<number> {
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const chain = new Set<number>([pid]);
  for (let current = byPid.get(pid); current && current.ppid > 1 && !chain.has(current.ppid); current = byPid.get(current.ppid)) {
    chain.add(current.ppid);
  }
  return chain;
}

/**
 * What runs under the given roots (e.g. tmux pane processes): the roots, their descendants, and
 * every member of their sessions or process groups. A session catches what a descendant left
 * behind after its parent died (reparented to init, but still in the pane's session).
 */
export function processTree(table: readonly ProcessEntry[], roots: readonly number[]): ProcessEntry[] {
  const rootSet = new Set(roots);
  const found = new Map<number, ProcessEntry>();
  for (const p of table) {
    if (rootSet.has(p.pid) || rootSet.has(p.sid) || rootSet.has(p.pgid)) found.set(p.pid, p);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of table) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.set(p.pid, p);
        grew = true;
      }
    }
  }
  return [...found.values()];
}

/** True when `path` is `dir` or inside it. */
function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * The processes whose working directory is inside each of `dirs` (Linux: `/proc/<pid>/cwd`;
 * elsewhere `lsof -d cwd`). Null when this system offers neither, so the caller cannot tell.
 */
export async function processesInside(dirs: readonly string[]): Promise<Map<string, ProcessEntry[]> | null> {
  const real = await Promise.all(dirs.map((d) => realpath(d).catch(() => d)));
  const result = new Map<string, ProcessEntry[]>(dirs.map((d) => [d, []]));
  const cwds = new Map<number, string>();
  let table: ProcessEntry[];
  if (process.platform === 'linux') {
    table = await listProcesses();
    for (const p of table) {
      // Another user's process (EACCES) or one that just ended (ENOENT) has no cwd we can see.
      const cwd = fromProc(() => readlinkSync(`/proc/${p.pid}/cwd`));
      if (cwd !== null) cwds.set(p.pid, cwd);
    }
  } else {
    const text = await output('lsof', ['-n', '-P', '-w', '-d', 'cwd', '-F', 'pn']);
    if (text === null) return null;
    let pid = 0;
    for (const line of text.split('\n')) {
      if (line.startsWith('p')) pid = Number(line.slice(1));
      else if (line.startsWith('n') && pid > 0) cwds.set(pid, line.slice(1));
    }
    table = await listProcesses();
  }
  for (const p of table) {
    const cwd = cwds.get(p.pid);
    if (cwd === undefined || p.zombie) continue;
    dirs.forEach((dir, i) => {
      if (isInside(cwd, real[i]!) || isInside(cwd, dir)) result.get(dir)!.push(p);
    });
  }
  return result;
}

/**
 * The variable every agent runtime puts the task id in (`ORANGE_TASK_ID`): whatever an agent
 * starts inherits it, so it tells the task's own processes from anyone else's.
 */
export const TASK_ID_VARIABLE = 'ORANGE_TASK_ID';

/** One variable of a process's environment as it was started; null when unreadable or not set. */
async function environmentValue(pid: number, name: string): Promise<string | null> {
  const environ = await readFile(`/proc/${pid}/environ`).catch(() => null);
  if (environ === null) return null;
  const prefix = `${name}=`;
  for (const entry of environ.toString('utf8').split('\0')) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return null;
}

/**
 * The task's own processes working inside `dir`: those whose cwd is in it and whose environment
 * names the task (`ORANGE_TASK_ID`) — its agents and what they started, never a person's shell,
 * another task's agent or a tmux server. Null where other processes' environments cannot be
 * read (outside Linux): the caller cannot tell whose they are and must not stop any.
 */
export async function taskProcessesInside(dir: string, taskId: string): Promise<ProcessEntry[] | null> {
  if (process.platform !== 'linux') return null;
  const inside = await processesInside([dir]);
  if (inside === null) return null;
  const found = inside.get(dir) ?? [];
  const owned = await Promise.all(found.map(async (p) => ((await environmentValue(p.pid, TASK_ID_VARIABLE)) === taskId ? p : null)));
  return owned.filter((p): p is ProcessEntry => p !== null);
}
