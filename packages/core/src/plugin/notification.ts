import type { NotificationPriority } from '../config/index.js';
import type { TaskMeta } from '../task/index.js';

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

/** What one delivery run of the outbox is given. */
export interface OutboxDeliveryOptions {
  /** Only entries written at least this long ago (default 0: all). */
  readonly minAgeMs?: number;
  /** Stops taking entries once aborted (the one in flight is finished); the rest stay in the outbox. */
  readonly signal?: AbortSignal;
}

/** `orange.notifications`: the notifier registry and the delivery of what is raised. */
export interface Notifications {
  /** Adds a channel (from a notifier plugin's `apply`). A later one of the same name replaces it. */
  register(notifier: Notifier): void;
  /** Names of the registered notifiers. */
  readonly names: string[];
  /** How many notifications this process wrote to the outbox (the CLI starts a deliverer when any). */
  readonly outboxWrites: number;
  /** Refuses (E_CONFIG) routes that name a notifier no plugin provides. */
  checkRoutes(): void;
  /** The notifiers a priority is routed to. */
  routeOf(level: NotificationPriority): Notifier[];
  /** The priority of entering `status` (the config's `notifications.statuses` over the built-in table), or null when silent. */
  statusPriority(status: string): NotificationPriority | null;
  /** Raises a notification: never waits for delivery, never throws. */
  raise(input: NotificationInput): Notification;
  /** Makes a notification durable now and returns the function that sends it (a move's own notice, staged before its write). */
  stage(input: NotificationInput): Promise<() => void>;
  /** Waits for the writes and deliveries this process started. */
  settle(): Promise<void>;
  /** Delivers one notification to its routed notifiers and the `notification` hook. */
  deliver(notification: Notification): Promise<void>;
  /** Delivers what waits in the outbox (each entry routed by its project's config); returns how many. */
  deliverOutbox(options?: OutboxDeliveryOptions): Promise<number>;
  /** Delivers, in the background, outbox entries whose deliverer never came. */
  flushOutbox(): void;
  /** Stops a background flush after the entry in flight. */
  stopFlushing(): void;
}

