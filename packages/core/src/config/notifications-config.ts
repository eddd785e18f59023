import { z } from 'zod';

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
  completed: 'action',
  stopped: 'info',
};

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
    /**
     * A task in one status longer than this raises an `urgent` `task.stale` (checked by the monitor).
     * A number watches the statuses where an agent is at work (not those that wait for a person:
     * reviewing, stuck, clarification); a record gives each watched status its own time.
     */
    staleAfterMs: z.union([z.number().int().positive(), z.record(z.string().min(1), z.number().int().positive())]).optional(),
    /** Priority of entering a status, over the built-in table; `null` silences a status. */
    statuses: z.record(z.string().min(1), priority.nullable()).default({}),
  })
  .strict();

export type NotificationsConfig = z.output<typeof NotificationsConfigSchema>;
