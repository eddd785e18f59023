import type { MoveNotification, NotificationPriority, TaskMeta } from '@orange/core';

/** A stop someone should hear about: the circuit breaker, the top tier used up, the budget. */
export interface Notice {
  readonly kind: 'breaker' | 'exhausted' | 'budget';
  readonly message: string;
}

/** How each notice reads as a notification: the breaker and the top tier need a person now. */
const NOTICES: Readonly<Record<Notice['kind'], { title: string; priority: NotificationPriority }>> = {
  breaker: { title: 'Circuit breaker tripped', priority: 'urgent' },
  exhausted: { title: 'Retries used up at the top tier', priority: 'urgent' },
  budget: { title: 'Stopped at its budget', priority: 'warning' },
};

/** The `pipeline.<kind>` notification the move into `failed` or `stopped` carries, the diagnostics as its reason. */
export function noticeNotification(meta: Pick<TaskMeta, 'summary' | 'branch'>, notice: Notice): MoveNotification {
  const { title, priority } = NOTICES[notice.kind];
  return { event: `pipeline.${notice.kind}`, priority, title: `${title}: ${meta.summary.trim() || meta.branch}`, reason: notice.message };
}
