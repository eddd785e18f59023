import { readFile } from 'node:fs/promises';
import { isRunning, processStart } from '../process/index.js';
import { writeFileAtomic } from '../store/index.js';
import { withLock } from '../store/index.js';
import type { OrangePaths } from '../store/index.js';

/** One process that runs the monitor's poll, or stands by to. */
export interface MonitorHolder {
  readonly pid: number;
  /**
   * The process's start time as the system reports it: a later process that reused the pid has
   * another, so a dead holder never looks alive. '' where the system cannot tell.
   */
  readonly start: string;
  /** `monitor` (the `orange monitor` command) or `dashboard`. */
  readonly kind: 'monitor' | 'dashboard';
  /** The one project it polls; null: every project. */
  readonly project: string | null;
  readonly since: string;
}

const RANK: Record<MonitorHolder['kind'], number> = { monitor: 1, dashboard: 0 };

/** True when `a` polls every task `b` would (every project, or the same one). */
function covers(a: MonitorHolder, b: MonitorHolder): boolean {
  return a.project === null || a.project === b.project;
}

/**
 * True when `b` leaves its poll to `a`: `a` covers `b`'s scope and is an `orange monitor` where
 * `b` is a dashboard, or of the same kind with a wider scope, or the same scope and there first.
 */
export function outranks(a: MonitorHolder, b: MonitorHolder): boolean {
  if (a.pid === b.pid || !covers(a, b)) return false;
  if (RANK[a.kind] !== RANK[b.kind]) return RANK[a.kind] > RANK[b.kind];
  if (a.project !== b.project) return a.project === null;
  return a.since < b.since || (a.since === b.since && a.pid < b.pid);
}

/** The holder `self` leaves its poll to (the highest ranked), or null when `self` polls. */
export function deferredTo(holders: readonly MonitorHolder[], self: MonitorHolder): MonitorHolder | null {
  let best: MonitorHolder | null = null;
  for (const h of holders) if (outranks(h, self) && (best === null || outranks(h, best))) best = h;
  return best;
}

/**
 * The monitor lease, `$ORANGE_HOME/run/monitor.json`: every process that runs the monitor's poll
 * or stands by to (`orange monitor`, dashboards), with its scope. Each polls only while nobody
 * that covers its scope outranks it ({@link outranks}): a dashboard leaves the poll to an
 * `orange monitor` of every project, but not to one of another project. This saves double work;
 * what keeps an action from being done twice is the pass lock every pass runs under (`Monitor`).
 */
export class MonitorLease {
  private self: MonitorHolder | undefined;

  constructor(private readonly paths: OrangePaths) {}

  /** Every live holder, in the order they came. */
  async holders(): Promise<MonitorHolder[]> {
    return live(await this.read());
  }

  /**
   * Enters this process as `kind` over `project` (null: every project) if it is not in yet, and
   * says who polls for it now: null for this process, else the holder it leaves the poll to.
   */
  async claim(kind: MonitorHolder['kind'], project: string | null): Promise<MonitorHolder | null> {
    return this.update(async (holders) => {
      const self = await this.me(kind, project);
      return { holders: withSelf(holders, self), result: deferredTo(holders, self) };
    });
  }

  /**
   * For `orange monitor`: enters this process unless a live `orange monitor` already polls all
   * of `project` (returned, and this process is not entered); null once entered.
   */
  async take(project: string | null): Promise<MonitorHolder | null> {
    return this.update(async (holders) => {
      const self = await this.me('monitor', project);
      const other = holders.find((h) => h.kind === 'monitor' && h.pid !== process.pid && covers(h, self)) ?? null;
      return { holders: other ? holders : withSelf(holders, self), result: other };
    });
  }

  /** Leaves the lease (nothing when this process is not in it). */
  async release(): Promise<void> {
    await this.update(async (holders) => ({ holders: holders.filter((h) => h.pid !== process.pid), result: undefined })).catch(() => undefined);
  }

  /** Reads the live holders under the lease's lock, lets `change` decide, writes its list (dead holders dropped). */
  private async update<T>(change: (holders: MonitorHolder[]) => Promise<{ holders: MonitorHolder[]; result: T }>): Promise<T> {
    return withLock(this.paths.monitorLeaseFile, 'the monitor lease', async () => {
      const stored = await this.read();
      const { holders, result } = await change(await live(stored));
      if (!sameHolders(stored, holders)) await writeFileAtomic(this.paths.monitorLeaseFile, `${JSON.stringify({ holders }, null, 1)}\n`);
      return result;
    });
  }

  private async me(kind: MonitorHolder['kind'], project: string | null): Promise<MonitorHolder> {
    if (this.self?.kind !== kind || this.self.project !== project) {
      this.self = { pid: process.pid, start: (await processStart(process.pid)) ?? '', kind, project, since: new Date().toISOString() };
    }
    return this.self;
  }

  private async read(): Promise<MonitorHolder[]> {
    const text = await readFile(this.paths.monitorLeaseFile, 'utf8').catch(() => null);
    if (text === null) return [];
    try {
      const parsed = JSON.parse(text) as { holders?: unknown } | Partial<MonitorHolder>;
      // The first lease file held one holder as a bare object.
      const list = Array.isArray((parsed as { holders?: unknown }).holders) ? ((parsed as { holders: unknown[] }).holders) : [parsed];
      return list.map(parseHolder).filter((h): h is MonitorHolder => h !== null);
    } catch {
      return [];
    }
  }
}

function parseHolder(value: unknown): MonitorHolder | null {
  if (typeof value !== 'object' || value === null) return null;
  const h = value as Record<string, unknown>;
  if (typeof h.pid !== 'number' || !Number.isInteger(h.pid) || h.pid <= 0 || (h.kind !== 'monitor' && h.kind !== 'dashboard')) return null;
  return {
    pid: h.pid,
    start: typeof h.start === 'string' ? h.start : '',
    kind: h.kind,
    project: typeof h.project === 'string' ? h.project : null,
    since: typeof h.since === 'string' ? h.since : '',
  };
}

/** The holders whose process still runs: the same pid and, where it was recorded, the same start time. */
async function live(holders: readonly MonitorHolder[]): Promise<MonitorHolder[]> {
  const alive = await Promise.all(holders.map(isAlive));
  return holders.filter((_, i) => alive[i]);
}

async function isAlive(holder: MonitorHolder): Promise<boolean> {
  if (!isRunning(holder.pid)) return false;
  if (holder.start === '') return true;
  const start = await processStart(holder.pid);
  return start === '' || start === holder.start;
}

/** `holders` with this process's entry replaced by `self` (in its place), or `self` added. */
function withSelf(holders: readonly MonitorHolder[], self: MonitorHolder): MonitorHolder[] {
  const at = holders.findIndex((h) => h.pid === self.pid);
  return at === -1 ? [...holders, self] : holders.map((h, i) => (i === at ? self : h));
}

function sameHolders(a: readonly MonitorHolder[], b: readonly MonitorHolder[]): boolean {
  return a.length === b.length && a.every((h, i) => h.pid === b[i]?.pid && h.start === b[i]?.start && h.kind === b[i]?.kind && h.project === b[i]?.project && h.since === b[i]?.since);
}
