import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processAlive, signalProcess } from './signal-process.js';

describe('signalProcess', () => {
  it('signals a live process, and answers false for one that is gone instead of throwing ESRCH', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    const pid = child.pid!;
    expect(processAlive(pid)).toBe(true);
    expect(signalProcess(pid, 'SIGKILL')).toBe(true);
    await once(child, 'exit');
    expect(processAlive(pid)).toBe(false);
    expect(signalProcess(pid, 'SIGKILL')).toBe(false);
  });

  it('throws what is not "gone": a process it may not signal', () => {
    // pid 1 exists; as root it may be signalled with 0, as another user EPERM is thrown.
    if (process.getuid?.() === 0) expect(signalProcess(1, 0)).toBe(true);
    else expect(() => signalProcess(1, 0)).toThrow(/EPERM/);
  });
});
