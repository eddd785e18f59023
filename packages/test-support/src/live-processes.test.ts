import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { processesEnd, processesOf } from './live-processes.js';
import { signalProcess } from './signal-process.js';
import { tempDir } from './temp-dir.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('processesOf and processesEnd', () => {
  it('find the processes working in a folder or naming an id, and wait for them to end, sweeping those left', async () => {
    dir = await tempDir('processes');
    // An id no other process on the machine names: the sweep kills what it finds.
    const id = `task-${randomBytes(8).toString('hex')}`;
    const idle = ['-e', 'setInterval(() => {}, 1000)'];
    const inside = spawn(process.execPath, idle, { cwd: dir });
    const named = spawn(process.execPath, [...idle, id], { cwd: '/' });
    expect((await processesOf(dir, [id])).map((p) => p.pid).sort()).toEqual([inside.pid, named.pid].sort());
    expect(await processesEnd(dir, [id], { timeoutMs: 300 })).toHaveLength(2);
    const left = await processesEnd(dir, [id], { sweepEveryMs: 0, sweep: (found) => found.forEach((p) => signalProcess(p.pid)) });
    expect(left).toEqual([]);
  });
});
