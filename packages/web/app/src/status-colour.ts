/**
 * One colour per built-in status, as the terminal dashboard's `status-colour.ts`: an agent's review
 * orange, a person's review yellow, done green; a workflow's own statuses are shown white.
 */
const STATUS_COLOURS: Readonly<Record<string, string>> = {
  pending: '#9aa3b2',
  planning: '#22d3ee',
  clarification: '#facc15',
  working: '#60a5fa',
  'agent-review': '#ff8700',
  reviewing: '#facc15',
  stuck: '#f87171',
  done: '#4ade80',
  cancelled: '#6b7280',
};

/** The CSS colour of a status. */
export function statusColour(status: string): string {
  return STATUS_COLOURS[status] ?? '#e5e7eb';
}

/** The order the grouped board shows statuses in: the built-in lifecycle, a workflow's own in between. */
const STATUS_ORDER = ['pending', 'created', 'planning', 'classifying', 'awaiting_clarification', 'clarification', 'working', 'agent-review', 'reviewing', 'stuck', 'done', 'cancelled'];

/** Where a status sorts among the groups (unknown ones after the known active ones, before `stuck`). */
export function statusRank(status: string): number {
  const at = STATUS_ORDER.indexOf(status);
  return at >= 0 ? at : STATUS_ORDER.indexOf('reviewing') + 0.5;
}
