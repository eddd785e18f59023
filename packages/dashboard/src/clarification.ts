import { parseSections } from '@orange/core';
import type { TaskRow } from './task-row.js';

/**
 * Statuses in which a task waits for a person to answer its `## Questions`: the pipeline's
 * `awaiting_clarification` (the classifier asked), and `clarification` of the default and classic
 * workflows (the worker asked, and waits in its session).
 */
const ASKING = new Set(['awaiting_clarification', 'clarification']);

/** Whether the task waits for a person to answer its `## Questions` (the detail pane shows them). */
export function awaitsAnswer(row: TaskRow): boolean {
  return !row.terminal && ASKING.has(row.meta.status);
}

/**
 * How a person answers the task (`a`): a pipeline task awaiting clarification takes a typed
 * answer (`orange task clarify`: it is classified again); a task in `clarification` is answered in
 * its worker's session, which waits for you (its prompt: "wait for the user to attach"), so `a`
 * attaches while that worker is alive. Null where nothing waits for an answer now.
 */
export function answerAction(row: TaskRow): 'clarify' | 'attach' | null {
  if (row.terminal) return null;
  if (row.meta.status === 'awaiting_clarification') return 'clarify';
  if (row.meta.status === 'clarification' && row.alive.includes('worker')) return 'attach';
  return null;
}

/** The text of TASK.md's `## Questions` section, or null when it has none or it is empty. */
export function questionsIn(body: string): string | null {
  return parseSections(body).get('Questions')?.trim() || null;
}
