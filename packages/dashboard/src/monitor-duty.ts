import { isOrangeError, Monitor, MonitorLease, type MonitorHolder, type MonitorReport, type Orange } from '@orange/core';
import { SettableValue } from './live-value.js';

/** How long a turn waits for a pass another process runs; past it the turn is skipped (that pass does the work). */
const PASS_WAIT_MS = 2_000;

/**
 * The monitor's poll (exit backstop, orphan cleanup, PR sync) while the dashboard is open. Each
 * turn the dashboard claims the monitor lease over every project: it polls only when no live
 * `orange monitor` of every project (or an earlier dashboard) outranks it, and takes the poll up
 * again once that one stops. Its pass runs under the pass lock like every other, so a pass of an
 * `orange monitor --project`, or a `--once`, never overlaps it.
 */
export class MonitorDuty {
  /** Who polls, for the header: `monitor: here`, or the process this dashboard leaves it to. */
  readonly label = new SettableValue<string>('monitor: …');
  private readonly lease: MonitorLease;
  private readonly monitor: Monitor;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  /**
   * `afterTurn` runs after every turn with the report of the pass this process ran, or null when
   * another process polled (the dashboard shows the pull requests the pass read, or asks itself).
   */
  constructor(
    private readonly orange: Orange,
    private readonly intervalMs: number = orange.config.pollIntervalMs,
    private readonly afterTurn?: (report: MonitorReport | null) => Promise<void> | void,
  ) {
    this.lease = new MonitorLease(orange.paths);
    // The dashboard shows one project, but its poll may be the machine's only backstop: all projects.
    this.monitor = new Monitor(orange);
  }

  /** Takes a turn now, then one per poll interval. */
  start(): void {
    const next = async () => {
      if (this.stopped) return;
      this.running = this.turn();
      await this.running;
      if (!this.stopped) this.timer = setTimeout(() => void next(), this.intervalMs);
    };
    void next();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    await this.lease.release();
  }

  /** One turn: claim the lease, run the pass when this process polls, then `afterTurn`. */
  async turn(): Promise<void> {
    const log = this.orange.log.child('dashboard');
    let report: MonitorReport | null = null;
    try {
      const polls = await this.lease.claim('dashboard', null);
      this.label.set(polls === null ? 'monitor: here' : labelOf(polls));
      if (polls === null) {
        report = await this.monitor.pass({ waitMs: PASS_WAIT_MS });
        log.debug('monitor pass', { pid: process.pid, tasks: report.tasks, exits: report.exits.length, durationMs: Math.round(report.durationMs) });
      }
    } catch (error) {
      if (isOrangeError(error) && error.code === 'E_LOCKED') log.debug('monitor pass skipped: another pass runs', { pid: process.pid });
      else log.error('dashboard monitor pass failed', { error: error instanceof Error ? error.message : String(error) });
    }
    if (!this.stopped) await Promise.resolve(this.afterTurn?.(report)).catch(() => undefined);
  }
}

/** Who polls instead of this dashboard, for the header. */
function labelOf(holder: MonitorHolder): string {
  return holder.kind === 'monitor' ? `monitor: pid ${holder.pid}` : `monitor: dashboard pid ${holder.pid}`;
}
