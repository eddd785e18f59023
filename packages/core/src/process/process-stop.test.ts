import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stopProcesses } from './process-stop.js';
import { listProcesses, processesInside, processTree, withAncestors } from './process-table.js';

const started: number[] = [];
const dirs: string[] = [];

/**
 * A process that ignores SIGHUP and SIGTERM, in its own session, with its cwd in a fresh directory;
 * `exited` says how it ended (this process is its parent, so it sees the signal that killed it).
 */
async function stubborn(): Promise<{ pid: number; dir: string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-proc-'));
  dirs.push(dir);
  const child = spawn('sh', ['-c', "trap '' HUP TERM; sleep 1000 & wait"], { cwd: dir, detached: true, stdio: 'ignore' });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.unref();
  started.push(child.pid!);
  // The shell's trap must be set before any signal arrives: wait for its `sleep` child.
  for (let i = 0; i < 100; i++) {
    if (processTree(await listProcesses(), [child.pid!]).length >= 2) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { pid: child.pid!, dir, exited };
}

afterEach(async () => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('process table', () => {
  it('finds a process tree by its session, and the processes working inside a directory', async () => {
    const { pid, dir } = await stubborn();
    const tree = processTree(await listProcesses(), [pid]);
    expect(tree.map((p) => p.pid)).toContain(pid);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    const inside = await processesInside([dir]);
    expect(inside?.get(dir)?.map((p) => p.pid)).toEqual(expect.arrayContaining(tree.map((p) => p.pid)));
  });

  it('counts the calling process and its parent among its ancestors', async () => {
    const chain = withAncestors(await listProcesses());
    expect(chain.has(process.pid)).toBe(true);
    expect(chain.has(process.ppid)).toBe(true);
  });
});

describe('stopProcesses', () => {
  it('escalates to SIGKILL for a process tree that ignores SIGHUP and SIGTERM: each process gets SIGTERM, then SIGKILL, which ends it', async () => {
    const { pid, exited } = await stubborn();
    const tree = processTree(await listProcesses(), [pid]).map((p) => p.pid);
    expect(tree, 'the shell and its sleep').toHaveLength(2);
    // Every signal stopProcesses sends, in order (passed on to the real kill).
    const kill = vi.spyOn(process, 'kill');
    let survivors: unknown[];
    let sent: string[];
    try {
      survivors = await stopProcesses((table) => processTree(table, [pid]), { signalNow: true, signalWaitMs: 500 });
    } finally {
      // Read before the restore, which forgets the calls.
      sent = kill.mock.calls.map(([to, signal]) => `${to} ${String(signal)}`);
      kill.mockRestore();
    }
    expect(survivors).toEqual([]);
    for (const p of tree) expect(sent.filter((s) => s.startsWith(`${p} `)), sent.join('\n')).toEqual([`${p} SIGTERM`, `${p} SIGKILL`]);
    expect(await exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(processTree(await listProcesses(), [pid]).filter((p) => !p.zombie)).toEqual([]);
  });

  it('never signals the calling process or its ancestors', async () => {
    const survivors = await stopProcesses((table) => table.filter((p) => p.pid === process.pid || p.pid === process.ppid), { signalNow: true, signalWaitMs: 100 });
    expect(survivors).toEqual([]);
  });
});
