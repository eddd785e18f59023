import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MonitorLease } from './monitor-lease.js';
import { OrangePaths } from './store/paths.js';

let home: string;
let paths: OrangePaths;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'orange-lease-'));
  paths = new OrangePaths(home);
});
afterEach(async () => rm(home, { recursive: true, force: true }));

/** A pid that surely belonged to a process and no longer does. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 999_999;
}

describe('the monitor lease', () => {
  it('is claimed when free, and claimed again by the same process', async () => {
    const lease = new MonitorLease(paths);
    expect(await lease.claim('dashboard')).toBe(true);
    expect(await lease.claim('dashboard')).toBe(true);
    expect(await lease.holder()).toMatchObject({ pid: process.pid, kind: 'dashboard' });
  });

  it('is not claimed while another live process holds it', async () => {
    await mkdir(dirname(paths.monitorLeaseFile), { recursive: true });
    // The parent of this test process is alive for as long as the test runs.
    await writeFile(paths.monitorLeaseFile, JSON.stringify({ pid: process.ppid, kind: 'monitor', since: 'x' }));
    const lease = new MonitorLease(paths);
    expect(await lease.claim('dashboard')).toBe(false);
    expect(await lease.holder()).toMatchObject({ pid: process.ppid, kind: 'monitor' });
  });

  it('is claimed over a holder that died', async () => {
    await mkdir(dirname(paths.monitorLeaseFile), { recursive: true });
    await writeFile(paths.monitorLeaseFile, JSON.stringify({ pid: await deadPid(), kind: 'monitor', since: 'x' }));
    expect(await new MonitorLease(paths).claim('dashboard')).toBe(true);
  });

  it('is taken outright by orange monitor, and released only by its holder', async () => {
    await mkdir(dirname(paths.monitorLeaseFile), { recursive: true });
    await writeFile(paths.monitorLeaseFile, JSON.stringify({ pid: process.ppid, kind: 'dashboard', since: 'x' }));
    const lease = new MonitorLease(paths);
    await lease.take('monitor');
    expect(await lease.holder()).toMatchObject({ pid: process.pid, kind: 'monitor' });
    await lease.release();
    expect(await lease.holder()).toBeNull();
    await writeFile(paths.monitorLeaseFile, JSON.stringify({ pid: process.ppid, kind: 'monitor', since: 'x' }));
    await lease.release();
    expect(JSON.parse(await readFile(paths.monitorLeaseFile, 'utf8'))).toMatchObject({ pid: process.ppid });
  });
});
