import type { BoardRow, TaskActionName } from '../../src/protocol';

/** The actions a person starts from the task page (the `check-*` ones are asked on the way). */
export type PageAction = Exclude<TaskActionName, 'check-merge' | 'check-cancel' | 'check-delete'>;

/** One action button: what it says, and whether it applies to the task now (others stay, muted: the engine says why not). */
export interface ActionButton {
  readonly name: PageAction;
  readonly label: string;
  readonly applies: boolean;
  /** Asks for text first (request changes, clarify, resume). */
  readonly form: boolean;
  /** Changes something that cannot be undone: drawn in red. */
  readonly danger: boolean;
  /** The move that takes the task on (start, restart, answer, merge): drawn in orange when it applies. */
  readonly main: boolean;
}

/** Statuses in which a task waits for a person's answer to its `## Questions`. */
const ASKING = new Set(['awaiting_clarification', 'clarification']);

/** Whether the task waits for a person to answer its `## Questions` (the page shows them). */
export function awaitsAnswer(row: Pick<BoardRow, 'terminal' | 'status'>): boolean {
  return !row.terminal && ASKING.has(row.status);
}

/** A pipeline task (its TASK.md has the workflow's `pipeline_phases` field): its driver is resumed, not respawned. */
export function isPipeline(meta: Readonly<Record<string, unknown>>, row: Pick<BoardRow, 'workflow'> | null): boolean {
  return 'pipeline_phases' in meta || row?.workflow === 'pipeline';
}

/**
 * Every action, each marked with whether it applies now, by the rules of the terminal dashboard's
 * footer (`key-map.ts`): spawn a waiting task, respawn a dead agent, request changes in review,
 * merge (a force-merge before the review passed), a pull request while not finished, cancel as
 * the workflow allows, delete a finished task, answer questions, resume a pipeline.
 */
export function actionButtons(row: BoardRow, pipeline: boolean, hasQuestions: boolean): ActionButton[] {
  const merge = row.targets.includes('done');
  const forceMerge = !merge && row.forcedTargets.includes('done');
  const deadAgent = !row.waiting && row.alive.length === 0 && row.liveness !== 'starting' && row.active && row.expected.length > 0;
  const cancel = row.cancel ?? 'cancel';
  const button = (name: PageAction, label: string, applies: boolean, extra: Partial<Pick<ActionButton, 'form' | 'danger' | 'main'>> = {}): ActionButton => ({
    name,
    label,
    applies,
    form: extra.form ?? false,
    danger: extra.danger ?? false,
    main: extra.main ?? false,
  });
  return [
    button('spawn', 'Spawn', row.waiting, { main: true }),
    button('respawn', 'Respawn', deadAgent && !pipeline, { main: true }),
    button('resume', 'Resume', pipeline && !row.terminal && !row.waiting && !awaitsAnswer(row) && row.alive.length === 0 && row.liveness !== 'starting', { form: true, main: true }),
    button('request-changes', 'Request changes', row.status === 'reviewing' && row.targets.includes('working'), { form: true }),
    button('clarify', 'Answer', !row.terminal && row.status === 'awaiting_clarification' && (hasQuestions || row.targets.includes('classifying')), { form: true, main: true }),
    // A force-merge is not the way forward, only a way out: not drawn as the main move.
    button('merge', forceMerge ? 'Force-merge' : 'Merge', merge || forceMerge, { main: merge }),
    button('pr', row.pr ? 'Open PR' : 'Create PR', !row.terminal || row.pr !== null),
    button('sync-pr', 'Sync PR', row.pr !== null && !row.terminal),
    button('cancel', cancel.charAt(0).toUpperCase() + cancel.slice(1), row.cancel !== null, { danger: true }),
    button('delete', 'Delete', row.terminal, { danger: true }),
  ];
}
