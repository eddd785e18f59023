import type { MoveNotification, Notifications, OrangePlugin } from '../plugin/index.js';
import type { TaskMeta } from '../task/index.js';

/** Headlines for entering a status; others read `<status>: <summary>`. */
const STATUS_TITLES: Readonly<Record<string, string>> = {
  stuck: 'Stuck',
  clarification: 'Needs clarification',
  awaiting_clarification: 'Needs clarification',
  failed: 'Failed',
  reviewing: 'Ready for review',
  done: 'Done',
  completed: 'Completed',
  cancelled: 'Cancelled',
  stopped: 'Stopped',
};

/**
 * The `status.changed` notification of a move into `to`, or null when entering it raises nothing.
 * The engine stages it before it writes the status (made durable first in a one-shot process), so
 * a process killed during the move's actions cannot leave the move unheard.
 */
export function statusNotice(notifications: Pick<Notifications, 'statusPriority'>, meta: TaskMeta, to: string, reason: string | undefined): MoveNotification | null {
  const priority = notifications.statusPriority(to);
  if (priority === null) return null;
  return { event: 'status.changed', priority, title: `${STATUS_TITLES[to] ?? to}: ${label(meta)}`, reason: reason ?? null };
}

/**
 * The core's notification events, raised from the lifecycle hooks like any plugin would: a task
 * created in a status with a priority (docs/notifications.md), an agent crash, an
 * action that failed, an exit rule's move that was refused. Stale tasks are raised by the monitor,
 * reactions by the reactions plugin.
 */
export function coreNotifications(): OrangePlugin {
  return {
    name: 'core-notifications',
    apply(orange) {
      const notifications = orange.notifications;
      // A move's status.changed is staged by the engine itself, before the status write (`statusNotice`).
      // Created straight in a status that needs a person (clarification: no summary; reviewing:
      // --status reviewing) is as good as having moved there. Created pending raises nothing.
      orange.hooks.taskCreated.tap('core-notifications', (event) => {
        const status = event.task.meta.status;
        const priority = notifications.statusPriority(status);
        if (priority === null) return;
        notifications.raise({
          event: 'task.created',
          priority,
          title: `${STATUS_TITLES[status] ?? status}: ${label(event.task.meta)}`,
          reason: 'created in this status',
          task: event.task.meta,
          to: status,
        });
      });
      // A refused exit rule left the task flagged with no agent moving it: a person must look.
      orange.hooks.transitionRefused.tap('core-notifications', (event) => {
        if (event.source !== 'exit-rule') return;
        notifications.raise({
          event: 'transition.refused',
          priority: 'warning',
          title: `Automatic move ${event.from} → ${event.to} refused: ${label(event.task.meta)}`,
          reason: event.reason,
          task: event.task.meta,
          from: event.from,
          to: event.to,
        });
      });
      orange.hooks.crash.tap('core-notifications', (event) => {
        notifications.raise({
          event: 'agent.crashed',
          priority: 'urgent',
          title: `Agent crashed in ${event.status} (crash ${event.crashCount}): ${label(event.task.meta)}`,
          reason: event.reason,
          task: event.task.meta,
        });
      });
      orange.hooks.hookFailed.tap('core-notifications', (event) => {
        notifications.raise({
          event: 'hook.failed',
          priority: 'urgent',
          title: `Action ${event.action} failed: ${label(event.task.meta)}`,
          reason: event.error.message,
          task: event.task.meta,
        });
      });
    },
  };
}

/**
 * The task as a person recognises it: its summary, else its branch. Tolerant of partial task
 * data: a plugin's own test may fire the bus with a hand-made event, and this tap must not throw.
 */
export function label(meta: Partial<Pick<TaskMeta, 'summary' | 'branch'>>): string {
  return (meta.summary ?? '').trim() || meta.branch || 'a task';
}
