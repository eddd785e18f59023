/** One colour per built-in status (ink colour names); a workflow's own statuses are shown white. */
const STATUS_COLOURS: Readonly<Record<string, string>> = {
  pending: 'gray',
  planning: 'cyan',
  clarification: 'yellow',
  working: 'blue',
  // As the original dashboard: a review by an agent orange, a person's review yellow, merged green.
  'agent-review': '#ff8700',
  reviewing: 'yellow',
  stuck: 'red',
  done: 'green',
  cancelled: 'gray',
};

/** The colour of a status, or undefined when colours are off (NO_COLOR). */
export function statusColour(status: string, colour: boolean): string | undefined {
  return colour ? (STATUS_COLOURS[status] ?? 'white') : undefined;
}
