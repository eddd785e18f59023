import type { Notification } from '../src/index.js';

/** A notification as an outbox entry carries it: task `id` is stuck (for tests of the outbox, here and in e2e). */
export function stuckNotification(id: string): Notification {
  return {
    event: 'status.changed',
    priority: 'urgent',
    title: `Stuck: task ${id}`,
    reason: null,
    task: { id, project: 'demo', branch: `fix/${id}`, summary: `task ${id}`, status: 'stuck', pr_url: null, attach: `orange task attach ${id}` },
    from: 'working',
    to: 'stuck',
    timestamp: new Date().toISOString(),
  };
}
