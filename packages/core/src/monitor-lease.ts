import { readFile, rm } from 'node:fs/promises';
import { writeFileAtomic } from './store/atomic.js';
import { withLock } from './store/lock.js';
import type { OrangePaths } from './store/paths.js';

/** Who holds the monitor lease. */
export interface MonitorHolder {
  readonly pid: number;
  /** `monitor` (the `orange monitor` command) or `dashboard`. */
  readonly kind: 'monitor' | 'dashboard';
  readonly since: string;
}

/**
 * The monitor lease, `$ORANGE_HOME/run/monitor.json`: the process that runs the monitor's poll.
 * `orange monitor` takes it outright; a dashboard polls only while it holds it (claiming it when
 * free or left by a dead process), so a dashboard opened beside a running monitor leaves the poll
 * to the monitor and nothing is done twice. Every action also goes through the engine, which acts
 * once on a death even when two pollers race; the lease saves the double work and the noise.
 */
export class MonitorLease {
  constructor(private readonly paths: OrangePaths) {}

  /** The live holder, or null when nobody (alive) holds it. */
  async holder(): Promise<MonitorHolder | null> {
    const text = await readFile(this.paths.monitorLeaseFile, 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const parsed = JSON.parse(text) as Partial<MonitorHolder>;
      if (typeof parsed.pid !== 'number' || (parsed.kind !== 'monitor' && parsed.kind !== 'dashboard')) return null;
      return isAlive(parsed.pid) ? { pid: parsed.pid, kind: parsed.kind, since: String(parsed.since ?? '') } : null;
    } catch {
      return null;
    }
  }

  /** Takes the lease for this process if it is free, stale or already ours; true when this process holds it. */
  async claim(kind: MonitorHolder['kind']): Promise<boolean> {
    return withLock(this.paths.monitorLeaseFile, 'the monitor lease', async () => {
      const current = await this.holder();
      if (current && current.pid !== process.pid) return false;
      if (!current) await this.write(kind);
      return true;
    });
  }

  /** Takes the lease whoever holds it (`orange monitor`: a dashboard holding it stops polling on its next turn). */
  async take(kind: MonitorHolder['kind']): Promise<void> {
    await withLock(this.paths.monitorLeaseFile, 'the monitor lease', () => this.write(kind));
  }

  /** Gives the lease up if this process holds it. */
  async release(): Promise<void> {
    await withLock(this.paths.monitorLeaseFile, 'the monitor lease', async () => {
      const current = await this.holder();
      if (current?.pid === process.pid) await rm(this.paths.monitorLeaseFile, { force: true });
    }).catch(() => undefined);
  }

  private async write(kind: MonitorHolder['kind']): Promise<void> {
    await writeFileAtomic(this.paths.monitorLeaseFile, JSON.stringify({ pid: process.pid, kind, since: new Date().toISOString() } satisfies MonitorHolder));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
