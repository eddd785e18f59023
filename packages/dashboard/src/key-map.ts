import type { AttachInfo } from '@orange/core';
import { answerAction } from './clarification.js';
import type { TaskRow } from './task-row.js';

/** Everything a key can do on the table screen. */
export type TableAction =
  | 'down'
  | 'up'
  | 'page-down'
  | 'page-up'
  | 'spawn'
  | 'attach'
  | 'review'
  | 'respawn'
  | 'create'
  | 'request-changes'
  | 'answer'
  | 'merge'
  | 'pull-request'
  | 'cancel'
  | 'delete'
  | 'refresh-pr'
  | 'copy-id'
  | 'view-file'
  | 'diff'
  | 'switch-pane'
  | 'filter'
  | 'search'
  | 'help'
  | 'quit';

/** The parts of ink's key event the map reads. */
export interface KeyPress {
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly return?: boolean;
  readonly tab?: boolean;
  readonly ctrl?: boolean;
}

/** One entry of the footer: the key as shown, and what it does. */
export interface FooterKey {
  readonly key: string;
  readonly label: string;
}

/**
 * What Enter does for a task: start one waiting in its workflow's initial status, attach to a live
 * agent, restart a dead one — only where an agent belongs (the status's responsible agent, or one
 * recorded as spawned): a status without one (classic's `reviewing`) has nothing to restart. A
 * pipeline task's agent is its driver: the engine's respawn resumes it from its checkpoint (as
 * `orange task resume`), so its footer says so.
 */
export function enterAction(row: TaskRow): 'spawn' | 'attach' | 'respawn' | 'review' | null {
  if (row.waiting) return 'spawn';
  if (row.alive.length > 0) return 'attach';
  // Its agent is being started: nothing to restart (yet).
  if (row.liveness === 'starting') return null;
  if (row.active && row.expected.length > 0) return 'respawn';
  // No agent by design (a person's review): Enter is the person's move — read the task and its review.
  if (row.active) return 'review';
  return null;
}

/** Enter's footer label: a pipeline task (it has the workflow's `pipeline_phases` field) is resumed, not respawned. */
function enterLabel(row: TaskRow, action: 'spawn' | 'attach' | 'respawn' | 'review', attach: AttachInfo | null): string {
  if (action === 'attach' && attach) return `attach (${attach.back} back)`;
  return action === 'respawn' && 'pipeline_phases' in row.meta ? 'resume' : action;
}

/**
 * The one key map: a key press on the table → the action, given the selected row. Keys that do
 * not apply to the row (e.g. `d` on an active task) still map to their action, so that the engine's
 * refusal is shown instead of nothing happening; the footer lists only the keys that apply.
 */
export function tableAction(input: string, key: KeyPress, row: TaskRow | undefined): TableAction | null {
  if (key.downArrow || input === 'j') return 'down';
  if (key.upArrow || input === 'k') return 'up';
  if (key.pageDown || (key.ctrl && input === 'd')) return 'page-down';
  if (key.pageUp || (key.ctrl && input === 'u')) return 'page-up';
  if (key.tab) return 'switch-pane';
  if (key.return) return row ? enterAction(row) : null;
  if (key.ctrl) return input === 'c' ? 'quit' : null;
  switch (input) {
    case 'c':
      return 'create';
    case 'f':
      return 'filter';
    case '/':
      return 'search';
    case '?':
      return 'help';
    case 'q':
      return 'quit';
  }
  if (!row) return null;
  switch (input) {
    case 'r':
      return 'request-changes';
    case 'a':
      return 'answer';
    case 'm':
      return 'merge';
    case 'p':
      return 'pull-request';
    case 'x':
      return 'cancel';
    case 'd':
      return 'delete';
    case 'R':
      return 'refresh-pr';
    case 'y':
      return 'copy-id';
    case 'v':
      return 'view-file';
    case 'D':
      return 'diff';
    case 'w':
      // The original's key for watching a live agent: Enter's attach, and only that.
      return enterAction(row) === 'attach' ? 'attach' : null;
    default:
      return null;
  }
}

/** The footer: the keys that apply to the selected task (and the ones that always do); `attach` adds the keys back from an agent. */
export function footerKeys(row: TaskRow | undefined, attach: AttachInfo | null = null): FooterKey[] {
  const keys: FooterKey[] = [{ key: 'j/k', label: 'move' }];
  if (row) {
    const enter = enterAction(row);
    if (enter) keys.push({ key: '⏎', label: enterLabel(row, enter, attach) });
  }
  keys.push({ key: 'c', label: 'create' });
  if (row) {
    if (row.meta.status === 'reviewing' && row.targets.includes('working')) keys.push({ key: 'r', label: 'changes' });
    const answer = answerAction(row);
    if (answer === 'attach' || (answer === 'clarify' && row.targets.includes('classifying'))) keys.push({ key: 'a', label: 'answer' });
    if (row.targets.includes('done')) keys.push({ key: 'm', label: 'merge' });
    else if (row.forcedTargets.includes('done')) keys.push({ key: 'm', label: 'force-merge' });
    if (!row.terminal) keys.push({ key: 'p', label: row.meta.pr_url ? 'open PR' : 'PR' });
    if (row.meta.pr_url && !row.terminal) keys.push({ key: 'R', label: 'sync PR' });
    if (row.cancel) keys.push({ key: 'x', label: row.cancel.kind });
    if (row.terminal) keys.push({ key: 'd', label: 'delete' });
    keys.push({ key: 'y', label: 'copy id' }, { key: 'v', label: 'TASK.md' });
    if (row.meta.workspace) keys.push({ key: 'D', label: 'diff' });
    if (row.active) keys.push({ key: 'tab', label: 'pane' });
  }
  keys.push({ key: 'f', label: 'filter' }, { key: '/', label: 'search' }, { key: '?', label: 'help' }, { key: 'q', label: 'quit' });
  return keys;
}

/** How Enter attaches to a live agent from here and how to come back, in one sentence (the `?` screen). */
export function attachHelp(attach: AttachInfo | null): string {
  switch (attach?.mode) {
    case 'switch':
      return `Enter on a live agent switches this tmux client to its session; ${attach.back} (switch-client -l) comes back here — ${attach.prefix} d would detach the whole client.`;
    case 'nested':
      return `Enter on a live agent attaches to it inside this pane (Orange's tmux server is not this one); ${attach.back} detaches back here (the outer tmux takes the first prefix).`;
    case 'attach':
      return `Enter on a live agent attaches this terminal to its tmux session; ${attach.back} detaches back here.`;
    default:
      return 'Enter on a live agent attaches to its tmux session; detaching comes back here.';
  }
}

/** Every key, for the `?` screen and docs/dashboard.md; `attach` says how Enter attaches and the keys back. */
export function helpKeys(attach: AttachInfo | null = null): readonly FooterKey[] {
  return [
    { key: 'j / k, ↓ / ↑', label: 'move the selection (PgDn / PgUp, Ctrl-d / Ctrl-u: a page)' },
    { key: 'Enter', label: `spawn a pending task, attach to a live agent${attach ? ` (${attach.back} back)` : ''}, respawn a dead one (a pipeline task: resume its driver); read a task no agent works on by design (a person's review)` },
    { key: 'w', label: 'watch: attach to the live agent (as Enter on one)' },
    { key: 'c', label: 'create a task (branch, summary, harness, status)' },
    { key: 'r', label: 'request changes on a task in reviewing (optional instructions go to ## Notes)' },
    { key: 'a', label: 'answer ## Questions: a pipeline task awaiting clarification takes your answer and is classified again; on a task in clarification, attach to its worker, who waits for you' },
    { key: 'm', label: 'merge a reviewed task into the default branch; on a task still at work, a force-merge (after confirmation)' },
    { key: 'p', label: 'open a pull request, or open the one it has in the browser' },
    { key: 'R', label: "sync the pull request: apply a merge or close on GitHub (as the monitor does), refresh its state" },
    { key: 'x', label: 'cancel the task; a pipeline task is stopped (its checkpoint kept for resume), a stopped one abandoned (after confirmation)' },
    { key: 'd', label: 'delete a finished task (after confirmation)' },
    { key: 'y', label: 'copy the task id (OSC 52)' },
    { key: 'v', label: 'view the whole TASK.md (j/k scroll, Esc back)' },
    { key: 'D', label: "the whole diff of the task's branch against its base, coloured (j/k scroll, n/N next or previous file, Esc back)" },
    { key: 'Tab', label: 'preview the worker or the reviewer' },
    { key: 'f', label: 'filter: all, active, done' },
    { key: '/', label: 'search by branch or summary (Enter keeps it, Esc clears it)' },
    { key: '?', label: 'this help' },
    { key: 'q', label: 'quit' },
  ];
}
