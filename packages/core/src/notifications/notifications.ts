import { STATUS_PRIORITIES, type NotificationPriority } from '../config/index.js';
import { OrangeError } from '../errors/index.js';
import type { Notification, NotificationInput, Notifications as NotificationsApi, Notifier, Orange, OutboxDeliveryOptions } from '../plugin/index.js';
import { OutboxDeliverer } from './delivery.js';
import { NotificationOutbox } from './outbox.js';

/**
 * Where a process delivers the notifications it raises. `in-process`: at once, beside the work (a
 * long-lived process: the monitor, the dashboard, a library user). `outbox`: written to
 * `$ORANGE_HOME/outbox/` for the detached deliverer (a one-shot CLI call, which must not wait on a
 * slow notifier; the CLI starts the deliverer once the command is done).
 */
export type NotificationDelivery = 'in-process' | 'outbox';

/**
 * How long an outbox entry is left to the deliverer started for it before a monitor pass delivers it
 * itself: an entry older than this had its deliverer killed, or none could start.
 */
export const OUTBOX_GRACE_MS = 10_000;

/**
 * Delivers notifications. Raising never waits for delivery and never throws: each routed notifier
 * runs on its own, bounded by `timeoutMs`, and a failure is logged. In `outbox` mode a raise only
 * writes the notification to the outbox; `settle()` waits for what this process started (writes,
 * deliveries).
 */
export class Notifications implements NotificationsApi {
  private readonly notifiers = new Map<string, Notifier>();
  private readonly pending = new Set<Promise<void>>();
  private readonly outbox: NotificationOutbox;
  private readonly deliverer: OutboxDeliverer;
  private flushing: AbortController | null = null;
  private written = 0;

  constructor(
    private readonly orange: Orange,
    /** Where raised notifications go (see `NotificationDelivery`). */
    readonly delivery: NotificationDelivery = 'in-process',
    /** An instance on the config of another directory, for outbox entries raised there (see `OutboxDeliverer`). */
    orangeFor?: (cwd: string) => Promise<Orange>,
  ) {
    this.outbox = new NotificationOutbox(orange.paths);
    this.deliverer = new OutboxDeliverer(orange.paths, { own: async () => orange, ...(orangeFor ? { load: orangeFor } : {}) });
  }

  /** Adds a channel (from a notifier plugin's `apply`). A later one of the same name replaces it. */
  register(notifier: Notifier): void {
    this.notifiers.set(notifier.name, notifier);
  }

  /** Names of the registered notifiers. */
  get names(): string[] {
    return [...this.notifiers.keys()];
  }

  /** How many notifications this process wrote to the outbox (the CLI starts a deliverer when any). */
  get outboxWrites(): number {
    return this.written;
  }

  /** Refuses routes naming a notifier no plugin registered (called once plugins are applied). */
  checkRoutes(): void {
    const routes = this.orange.config.notifications.routes ?? {};
    for (const [level, names] of Object.entries(routes)) {
      for (const name of names ?? []) {
        if (this.notifiers.has(name)) continue;
        const known = this.names.join(', ') || 'none';
        throw new OrangeError('E_CONFIG', `${this.orange.configFile ?? 'config'}: field "notifications.routes.${level}" names notifier "${name}", which no plugin provides (known: ${known})`, {
          field: `notifications.routes.${level}`,
        });
      }
    }
  }

  /** The notifiers a priority is routed to. */
  routeOf(level: NotificationPriority): Notifier[] {
    const routes = this.orange.config.notifications.routes;
    if (!routes) return [...this.notifiers.values()];
    return (routes[level] ?? []).map((name) => this.notifiers.get(name)).filter((n): n is Notifier => n !== undefined);
  }

  /** The priority of entering `status`, or null when it raises nothing. */
  statusPriority(status: string): NotificationPriority | null {
    const configured = this.orange.config.notifications.statuses;
    if (Object.hasOwn(configured, status)) return configured[status] ?? null;
    return STATUS_PRIORITIES[status] ?? null;
  }

  /**
   * Raises a notification: the `notification` hook sees it, then its route's notifiers get it —
   * here, or (in `outbox` mode) in the deliverer, which loads the same config. Returns at once.
   */
  raise(input: NotificationInput): Notification {
    const notification = this.build(input);
    // Nobody would hear it: no routed notifier, no observer. Not even an outbox file.
    if (!this.heard(notification)) return notification;
    this.track(this.delivery === 'outbox' ? this.post(notification) : this.deliver(notification));
    return notification;
  }

  /**
   * Raises a notification for an event about to happen (a move, written next) so that no death in
   * between loses it. In `outbox` mode it is in the outbox when this resolves: a process killed before
   * or after the event still has it delivered (at least once — also when the event then never came).
   * In `in-process` mode nothing outlives the process anyway: the returned function raises it, to be
   * called once the event happened.
   */
  async stage(input: NotificationInput): Promise<() => void> {
    const notification = this.build(input);
    if (!this.heard(notification)) return () => undefined;
    if (this.delivery === 'in-process') return () => this.track(this.deliver(notification));
    await this.post(notification);
    return () => undefined;
  }

  /** Waits until everything this process started (outbox writes, deliveries, an outbox flush) has ended. */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * Delivers one notification now: the `notification` hook and the routed notifiers, side by side,
   * each bounded by `timeoutMs`. Never throws; failures are logged.
   */
  async deliver(notification: Notification): Promise<void> {
    const log = this.orange.log.child('notifications');
    const timeoutMs = this.orange.config.notifications.timeoutMs;
    const fields = { event: notification.event, priority: notification.priority, task: notification.task.id };
    await Promise.all([
      bounded('notification hook', timeoutMs, () => this.orange.hooks.notification.promise({ orange: this.orange, notification })).catch((error: unknown) =>
        log.error('notification hook failed', { ...fields, error: message(error) }),
      ),
      ...this.routeOf(notification.priority).map((notifier) =>
        bounded(`notifier ${notifier.name}`, timeoutMs, (signal) => notifier.send(notification, { signal })).then(
          () => log.info('notification sent', { ...fields, notifier: notifier.name }),
          (error: unknown) => log.error('notifier failed', { ...fields, notifier: notifier.name, error: message(error) }),
        ),
      ),
    ]);
  }

  /**
   * Delivers the outbox until it is empty, each entry routed by the config of the project it was
   * raised in (`OutboxDeliverer`); returns at once when another process delivers it. Returns how
   * many it delivered.
   */
  deliverOutbox(options: OutboxDeliveryOptions = {}): Promise<number> {
    return this.deliverer.deliver(options);
  }

  /**
   * Delivers, in the background, outbox entries their own deliverer has not taken within
   * `OUTBOX_GRACE_MS` (it was killed, or could not start), unless a deliverer is at work now.
   * Called on every monitor pass; `settle()` waits for it.
   */
  flushOutbox(): void {
    if (this.flushing) return;
    const flushing = new AbortController();
    this.flushing = flushing;
    this.track(
      this.deliverOutbox({ minAgeMs: OUTBOX_GRACE_MS, signal: flushing.signal })
        .then((count) => {
          if (count > 0) this.orange.log.child('notifications').info('outbox flushed', { delivered: count });
        })
        .catch((error: unknown) => this.orange.log.child('notifications').error('outbox flush failed', { error: message(error) }))
        .finally(() => {
          this.flushing = null;
        }),
    );
  }

  /**
   * Stops a running outbox flush after the entry in flight: a monitor or dashboard that quits must
   * not work through a backlog for a dead webhook first. What is left stays in the outbox.
   */
  stopFlushing(): void {
    this.flushing?.abort();
  }

  /** Whether a routed notifier or a `notification` tap would get it. */
  private heard(notification: Notification): boolean {
    return this.routeOf(notification.priority).length > 0 || this.orange.hooks.notification.taps.length > 0;
  }

  private track(work: Promise<void>): void {
    const tracked = work.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Writes a notification to the outbox; if that fails, it is delivered here rather than lost. */
  private async post(notification: Notification): Promise<void> {
    try {
      await this.outbox.put({ notification, cwd: process.cwd() });
      this.written++;
    } catch (error) {
      this.orange.log.child('notifications').warn('outbox write failed; delivering in this process', { event: notification.event, task: notification.task.id, error: message(error) });
      await this.deliver(notification);
    }
  }

  private build(input: NotificationInput): Notification {
    const meta = input.task;
    const runtime = this.orange.maybeSlot('runtime');
    const attachArgv = runtime?.attachCommand?.(meta);
    return {
      event: input.event,
      priority: input.priority,
      title: input.title,
      reason: input.reason ?? null,
      task: {
        id: meta.id,
        project: meta.project,
        branch: meta.branch,
        summary: meta.summary,
        status: meta.status,
        pr_url: meta.pr_url,
        attach: attachArgv ? attachArgv.map(shellWord).join(' ') : `orange task attach ${meta.id}`,
      },
      from: input.from ?? null,
      to: input.to ?? null,
      timestamp: new Date().toISOString(),
    };
  }
}

/**
 * Runs `fn` with a deadline. At the deadline the signal aborts and the promise rejects, whether
 * or not `fn` listens: a notifier that hangs must not hold a transition or a process longer.
 */
async function bounded(what: string, timeoutMs: number, fn: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`${what} did not finish within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(() => fn(controller.signal)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A word of a command line a person can paste: quoted only when it needs to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
