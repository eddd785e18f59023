import { z } from 'zod';
import { OrangeError } from './errors.js';
import type { Orange } from './orange.js';
import type { TaskMeta } from './task.js';

/** How much a notification needs a person, most pressing first. */
export const NOTIFICATION_PRIORITIES = ['urgent', 'action', 'warning', 'info'] as const;
export type NotificationPriority = (typeof NOTIFICATION_PRIORITIES)[number];

/**
 * Priorities of entering a status, for the built-in workflows and the pipeline. A status missing
 * here (e.g. `working`) raises no notification; `notifications.statuses` in the config adds or overrides.
 */
export const STATUS_PRIORITIES: Readonly<Record<string, NotificationPriority>> = {
  stuck: 'urgent',
  clarification: 'urgent',
  awaiting_clarification: 'urgent',
  failed: 'urgent',
  reviewing: 'action',
  done: 'info',
  cancelled: 'info',
  completed: 'info',
  stopped: 'info',
};

/** The task a notification is about, as notifiers show it. */
export interface NotificationTask {
  readonly id: string;
  readonly project: string;
  readonly branch: string;
  readonly summary: string;
  readonly status: string;
  readonly pr_url: string | null;
  /** A command that shows the agent live (`tmux -L orange attach-session -t …`). */
  readonly attach: string;
}

/**
 * One notification as every notifier receives it; the webhook notifier posts exactly this object
 * as its JSON body (docs/notifications.md).
 */
export interface Notification {
  /** What happened: `status.changed`, `agent.crashed`, `hook.failed`, `task.stale`, `reaction.gave_up`, `pull_request.approved`, or a plugin's own. */
  readonly event: string;
  readonly priority: NotificationPriority;
  /** One line for a person, e.g. "Ready for review: Add a login form". */
  readonly title: string;
  /** Why, when known (a refused gate, a crash reason, the checks that failed). */
  readonly reason: string | null;
  readonly task: NotificationTask;
  /** Set for `status.changed`. */
  readonly from: string | null;
  readonly to: string | null;
  readonly timestamp: string;
}

/** What a plugin passes to `orange.notifications.raise`. */
export interface NotificationInput {
  readonly event: string;
  readonly priority: NotificationPriority;
  readonly title: string;
  readonly reason?: string | null;
  readonly task: TaskMeta;
  readonly from?: string | null;
  readonly to?: string | null;
}

/** A channel: desktop, webhook, Slack, or your own. `send` may throw; it is given a signal that aborts at the timeout. */
export interface Notifier {
  readonly name: string;
  send(notification: Notification, context: { readonly signal: AbortSignal }): Promise<void>;
}

const priority = z.enum(NOTIFICATION_PRIORITIES);

/** `notifications` in the config. */
export const NotificationsConfigSchema = z
  .object({
    /** Which notifiers get which priority; without it, every notifier gets every priority. */
    routes: z
      .object({ urgent: z.array(z.string().min(1)), action: z.array(z.string().min(1)), warning: z.array(z.string().min(1)), info: z.array(z.string().min(1)) })
      .partial()
      .strict()
      .optional(),
    /** How long one notifier may take with one notification before it is given up (and logged). */
    timeoutMs: z.number().int().positive().default(30_000),
    /** A task in an active status longer than this raises an `urgent` `task.stale` (checked by the monitor). */
    staleAfterMs: z.number().int().positive().optional(),
    /** Priority of entering a status, over the built-in table; `null` silences a status. */
    statuses: z.record(z.string().min(1), priority.nullable()).default({}),
  })
  .strict();

export type NotificationsConfig = z.output<typeof NotificationsConfigSchema>;

/**
 * Delivers notifications. Raising never waits for delivery and never throws: each routed notifier
 * runs on its own, bounded by `timeoutMs`, and a failure is logged. A CLI process stays alive
 * until deliveries end (at the latest at the timeout); `settle()` waits for them.
 */
export class Notifications {
  private readonly notifiers = new Map<string, Notifier>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly orange: Orange) {}

  /** Adds a channel (from a notifier plugin's `apply`). A later one of the same name replaces it. */
  register(notifier: Notifier): void {
    this.notifiers.set(notifier.name, notifier);
  }

  /** Names of the registered notifiers. */
  get names(): string[] {
    return [...this.notifiers.keys()];
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

  /** Raises a notification: the `notification` hook sees it, then its route's notifiers get it. Returns at once. */
  raise(input: NotificationInput): Notification {
    const notification = this.build(input);
    const delivery = this.deliver(notification).finally(() => this.pending.delete(delivery));
    this.pending.add(delivery);
    return notification;
  }

  /** Waits until every delivery raised so far has ended (sent, failed or timed out). */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
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

  private async deliver(notification: Notification): Promise<void> {
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
