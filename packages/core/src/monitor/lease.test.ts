import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deferredTo, MonitorLease, outranks, type MonitorHolder } from './lease.js';
import { processStart } from '../process/process-table.js';
import { OrangePaths } from '../store/paths.js';

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

const holder = (fields: Partial<MonitorHolder> & Pick<MonitorHolder, 'pid' | 'kind'>): MonitorHolder => ({ start: '', project: null, since: '2026-01-01T00:00:00.000Z', ...fields });

/** Writes the lease file as another process would have. */
async function stored(...holders: MonitorHolder[]): Promise<void> {
  await mkdir(dirname(paths.monitorLeaseFile), { recursive: true });
  await writeFile(paths.monitorLeaseFile, JSON.stringify({ holders }));
}

/** The parent of this test process: alive for as long as the test runs, with its real start time. */
async function liveParent(kind: MonitorHolder['kind'], project: string | null = null): Promise<MonitorHolder> {
  return holder({ pid: process.ppid, start: (await processStart(process.ppid)) ?? '', kind, project });
}

describe('who polls (pure)', () => {
  const monitorAll = holder({ pid: 10, kind: 'monitor' });
  const monitorApp = holder({ pid: 11, kind: 'monitor', project: 'app' });
  const dashboard = holder({ pid: 20, kind: 'dashboard' });
  const laterDashboard = holder({ pid: 21, kind: 'dashboard', since: '2026-01-01T00:00:05.000Z' });

  it('a dashboard leaves the poll to an orange monitor of every project', () => {
    expect(deferredTo([monitorAll, dashboard], dashboard)).toBe(monitorAll);
    expect(deferredTo([monitorAll, dashboard], monitorAll)).toBeNull();
  });

  it('a dashboard goes on polling beside a monitor of one project, which goes on polling too', () => {
    expect(deferredTo([monitorApp, dashboard], dashboard)).toBeNull();
    expect(deferredTo([monitorApp, dashboard], monitorApp)).toBeNull();
  });

  it('a monitor of one project leaves the poll to a monitor of every project, never the other way', () => {
    expect(outranks(monitorAll, monitorApp)).toBe(true);
    expect(outranks(monitorApp, monitorAll)).toBe(false);
  });

  it('of two dashboards the earlier polls; of two monitors of other projects both poll', () => {
    expect(deferredTo([dashboard, laterDashboard], laterDashboard)).toBe(dashboard);
    expect(deferredTo([dashboard, laterDashboard], dashboard)).toBeNull();
    const monitorWeb = holder({ pid: 12, kind: 'monitor', project: 'web' });
    expect(deferredTo([monitorApp, monitorWeb], monitorWeb)).toBeNull();
    expect(deferredTo([monitorApp, monitorWeb], monitorApp)).toBeNull();
  });

  it('defers to the highest ranked: a monitor over an earlier dashboard', () => {
    expect(deferredTo([dashboard, monitorAll, laterDashboard], laterDashboard)).toBe(monitorAll);
  });
});

describe('the monitor lease', () => {
  it('lets the first dashboard poll, and keeps it in the lease across turns', async () => {
    const lease = new MonitorLease(paths);
    expect(await lease.claim('dashboard', null)).toBeNull();
    expect(await lease.claim('dashboard', null)).toBeNull();
    expect(await lease.holders()).toEqual([expect.objectContaining({ pid: process.pid, kind: 'dashboard', project: null })]);
  });

  it('makes a dashboard stand by while a live orange monitor of every project holds it', async () => {
    const monitor = await liveParent('monitor');
    await stored(monitor);
    const lease = new MonitorLease(paths);
    expect(await lease.claim('dashboard', null)).toEqual(monitor);
    // It stands by in the lease, ready to take the poll up when the monitor goes.
    expect((await lease.holders()).map((h) => h.pid)).toEqual([process.ppid, process.pid]);
  });

  it('does not silence a dashboard with a monitor of one project', async () => {
    await stored(await liveParent('monitor', 'app'));
    expect(await new MonitorLease(paths).claim('dashboard', null)).toBeNull();
  });

  it('drops a holder that died, and one whose pid now belongs to a later process', async () => {
    const reused = holder({ pid: process.ppid, kind: 'monitor', start: 'a start time that is not its own' });
    await stored(holder({ pid: await deadPid(), kind: 'monitor' }), reused);
    const lease = new MonitorLease(paths);
    expect(await lease.holders()).toEqual([]);
    expect(await lease.claim('dashboard', null)).toBeNull();
    expect((await lease.holders()).map((h) => h.pid)).toEqual([process.pid]);
  });

  it('records the start time of the holding process where the system tells it', async () => {
    await new MonitorLease(paths).claim('dashboard', null);
    const [entry] = JSON.parse(await readFile(paths.monitorLeaseFile, 'utf8')).holders as MonitorHolder[];
    expect(entry?.start).toBe((await processStart(process.pid)) ?? '');
    if (process.platform === 'linux') expect(entry?.start).toMatch(/^\d+$/);
  });

  it('lets orange monitor in, but not beside a live monitor that covers its scope', async () => {
    const other = await liveParent('monitor');
    await stored(other);
    const lease = new MonitorLease(paths);
    expect(await lease.take(null)).toEqual(other);
    expect(await lease.take('app')).toEqual(other);
    expect((await lease.holders()).map((h) => h.pid)).toEqual([process.ppid]);

    await stored(await liveParent('monitor', 'web'));
    expect(await lease.take('app')).toBeNull();
    expect(await lease.take(null)).toBeNull();
    expect((await lease.holders()).map((h) => [h.pid, h.project])).toEqual([
      [process.ppid, 'web'],
      [process.pid, null],
    ]);
  });

  it('is released only by its holder', async () => {
    const other = await liveParent('dashboard');
    await stored(other);
    const lease = new MonitorLease(paths);
    await lease.take(null);
    await lease.release();
    expect(await lease.holders()).toEqual([other]);
  });

  it('reads the lease file of the first version (one holder, no start time)', async () => {
    await mkdir(dirname(paths.monitorLeaseFile), { recursive: true });
    await writeFile(paths.monitorLeaseFile, JSON.stringify({ pid: process.ppid, kind: 'monitor', since: 'x' }));
    const lease = new MonitorLease(paths);
    expect(await lease.claim('dashboard', null)).toMatchObject({ pid: process.ppid, kind: 'monitor', project: null });
  });
});
