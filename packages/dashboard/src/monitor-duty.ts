import { Monitor, MonitorLease, type Orange } from '@orange/core';
import type { LiveValue } from './components/app.js';

/**
 * The monitor's poll (exit backstop, orphan cleanup, PR sync) while the dashboard is open, run only
 * while this process holds the monitor lease: with an `orange monitor` running, it leaves the work
 * to it, and takes it up again if that monitor stops. `label` says who runs it, for the header.
 */
export class MonitorDuty implements LiveValue<string> {
  private readonly lease: MonitorLease;
  private readonly monitor: Monitor;
  private readonly listeners = new Set<() => void>();
  private label = 'monitor: …';
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly orange: Orange,
    private readonly intervalMs: number = orange.config.pollIntervalMs,
  ) {
    this.lease = new MonitorLease(orange.paths);
    // The dashboard shows one project, but its poll is the machine's only backstop: all projects.
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
    try {
      if (await this.lease.claim('dashboard')) {
        this.set('monitor: here');
        await this.monitor.pass();
        return;
      }
      const holder = await this.lease.holder();
      this.set(holder?.kind === 'monitor' ? `monitor: pid ${holder.pid}` : holder ? `monitor: dashboard pid ${holder.pid}` : 'monitor: …');
    } catch (error) {
      this.orange.log.error('dashboard monitor pass failed', { error: error instanceof Error ? error.message : String(error) });
    }
  }

  private set(label: string): void {
    if (label === this.label) return;
    this.label = label;
    for (const listener of this.listeners) listener();
  }
}
