import { isOrangeError, Monitor, MonitorLease, type MonitorHolder, type Orange } from '@orange/core';
import type { LiveValue } from './components/app.js';

/** How long a turn waits for a pass another process runs; past it the turn is skipped (that pass does the work). */
const PASS_WAIT_MS = 2_000;

/**
 * The monitor's poll (exit backstop, orphan cleanup, PR sync) while the dashboard is open. Each
 * turn the dashboard claims the monitor lease over every project: it polls only when no live
 * `orange monitor` of every project (or an earlier dashboard) outranks it, and takes the poll up
 * again once that one stops. Its pass runs under the pass lock like every other, so a pass of an
 * `orange monitor --project`, or a `--once`, never overlaps it. `label` says who polls, for the header.
 */
export class MonitorDuty implements LiveValue<string> {
  private readonly lease: MonitorLease;
  private readonly monitor: Monitor;
  private readonly listeners = new Set<() => void>();
  private label = 'monitor: …';
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  /** `afterTurn` runs after every turn, whoever polled (the dashboard refreshes its pull requests then). */
  constructor(
    private readonly orange: Orange,
    private readonly intervalMs: number = orange.config.pollIntervalMs,
    private readonly afterTurn?: () => Promise<void>,
  ) {
    this.lease = new MonitorLease(orange.paths);
    // The dashboard shows one project, but its poll may be the machine's only backstop: all projects.
    this.monitor = new Monitor(orange);
  }

  get = (): string => this.label;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Takes a turn now, then one per poll interval. */
  start(): void {
    const turn = async () => {
      if (this.stopped) return;
      this.running = this.turn();
      await this.running;
      if (!this.stopped) this.timer = setTimeout(() => void turn(), this.intervalMs);
    };
    void turn();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    await this.lease.release();
  }

  private async turn(): Promise<void> {
    const log = this.orange.log.child('dashboard');
    try {
      const polls = await this.lease.claim('dashboard', null);
      this.set(polls === null ? 'monitor: here' : labelOf(polls));
      if (polls === null) {
        const report = await this.monitor.pass({ waitMs: PASS_WAIT_MS });
        log.debug('monitor pass', { pid: process.pid, tasks: report.tasks, exits: report.exits.length, durationMs: Math.round(report.durationMs) });
      }
    } catch (error) {
      if (isOrangeError(error) && error.code === 'E_LOCKED') log.debug('monitor pass skipped: another pass runs', { pid: process.pid });
      else log.error('dashboard monitor pass failed', { error: error instanceof Error ? error.message : String(error) });
    }
    if (!this.stopped) await this.afterTurn?.().catch(() => undefined);
  }

  private set(label: string): void {
    if (label === this.label) return;
    this.label = label;
    for (const listener of this.listeners) listener();
  }
}

/** Who polls instead of this dashboard, for the header. */
function labelOf(holder: MonitorHolder): string {
  return holder.kind === 'monitor' ? `monitor: pid ${holder.pid}` : `monitor: dashboard pid ${holder.pid}`;
}
