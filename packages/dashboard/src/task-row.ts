import { cancelMove, type AgentRole, type CancelMove, type DiffStat, type ListedTask, type PullRequestCheck, type PullRequestReading, type PullRequestState, type TaskMeta, type Workflow } from '@orange/core';

/**
 * A row's agent face: `alive` (an agent runs), `starting` (its status starts an agent that has not
 * been recorded as spawned yet, and nothing failed), `none` (no agent by design: a waiting or
 * finished task, or a status that starts none — a person's review), `dead` (an agent that should
 * run does not).
 */
export type Liveness = 'alive' | 'starting' | 'dead' | 'none';

/** The pull request as the dashboard knows it: the number from the URL, the state once asked. */
export interface PullRequestView {
  readonly number: number | null;
  readonly url: string;
  /** Null until the pull request was read (by a monitor pass, R, or the dashboard). */
  readonly state: PullRequestState | null;
  /** Its checks in one mark (✓ all passed, ✗ one failed, … still running); null when unknown or none. */
  readonly checks?: ChecksMark | null;
}

/** A pull request as it was read, for its row. */
export function pullRequestView(read: PullRequestReading): PullRequestView {
  return { url: read.url, number: pullRequestNumber(read.url), state: read.state, checks: read.state === 'open' && read.checks ? checksMark(read.checks) : null };
}

/** A pull request's checks at a glance. */
export type ChecksMark = '✓' | '✗' | '…';

/** ✗ when any check failed or was cancelled, … while any is pending, ✓ when all passed or were skipped; null without checks. */
export function checksMark(checks: readonly Pick<PullRequestCheck, 'state'>[]): ChecksMark | null {
  if (checks.length === 0) return null;
  if (checks.some((c) => c.state === 'failure' || c.state === 'cancelled')) return '✗';
  if (checks.some((c) => c.state === 'pending')) return '…';
  return '✓';
}

/** One task as the dashboard shows it: its fields and what the feed learned about it. */
export interface TaskRow {
  readonly meta: TaskMeta;
  /** Engine-owned fields TASK.md shows with forged values. */
  readonly tampered: readonly string[];
  /** Terminal in its workflow (done, cancelled, …). */
  readonly terminal: boolean;
  /** In its workflow's initial status (`pending`, the pipeline's `created`): Enter starts it. */
  readonly waiting: boolean;
  /** Active in its workflow (an agent should be working on it). */
  readonly active: boolean;
  readonly liveness: Liveness;
  /** Agents the task should have running (the one its status starts, any with a recorded spawn). */
  readonly expected: readonly AgentRole[];
  /** Since when (epoch ms) its agent is being started: the status was entered, its spawn not recorded yet; null when not. */
  readonly startingSince: number | null;
  /** Agents that are alive now. */
  readonly alive: readonly AgentRole[];
  /** The workflow's targets from the task's status (what the keys may ask for). */
  readonly targets: readonly string[];
  /** Statuses only a person's confirmed force reaches from here (`done`: the force-merge). */
  readonly forcedTargets: readonly string[];
  /** What `x` (the CLI's `task cancel`) would do from here: cancel, stop or abandon; null when the workflow has no such move. */
  readonly cancel: CancelMove | null;
  readonly pr: PullRequestView | null;
  /** Null until the workspace provider answered (or when the task has no worktree). */
  readonly diff: DiffStat | null;
}


/**
 * A task's row as its workflow sees it, before the runtime and the SCM were asked (liveness
 * `none`, the PR state unknown; the feed adds what it knows). `targets` are the engine's legal
 * targets from its status; `previous`, the row it replaces, keeps the diff while the worktree is the same.
 */
export function rowOf(workflow: Workflow, targets: readonly string[], task: ListedTask, previous?: TaskRow, now: number = Date.now()): TaskRow {
  const { meta } = task;
  const pr = meta.pr_url ? { url: meta.pr_url, number: pullRequestNumber(meta.pr_url), state: null, checks: null } : null;
  return {
    meta,
    tampered: task.tampered,
    terminal: workflow.isTerminal(meta.status),
    waiting: meta.status === workflow.initial,
    active: workflow.isActive(meta.status),
    liveness: 'none',
    alive: [],
    targets,
    forcedTargets: workflow.forcedTargets(meta.status),
    cancel: cancelMove(workflow, meta.status),
    pr,
    diff: previous && previous.meta.workspace === meta.workspace ? previous.diff : null,
    expected: workflow.expectedAgents(meta),
    startingSince: startingSince(meta, startedAgent(meta, workflow), previous, now),
  };
}

/** How recent a change must be for a task first seen without its agent to count as starting. */
const FIRST_SIGHT_STARTING_MS = 10_000;

/**
 * Since when the task's agent is being started. Only a status entered while the dashboard watched
 * (or, at first sight, a task changed moments ago that never crashed) counts: the same status
 * without its agent after an exit was handled is a dead agent, not a start.
 */
function startingSince(meta: TaskMeta, starts: AgentRole | null, previous: TaskRow | undefined, now: number): number | null {
  if (starts === null || spawnOf(meta, starts) !== null || meta.attention) return null;
  if (previous) return previous.meta.status === meta.status ? previous.startingSince : now;
  const changed = Date.parse(meta.updated_at);
  return meta.crash_count === 0 && now - changed < FIRST_SIGHT_STARTING_MS ? changed : null;
}

/** The agent a task's status starts: its responsible agent, when the status gives it work (a prompt). */
function startedAgent(meta: TaskMeta, workflow: Workflow): AgentRole | null {
  if (!workflow.isActive(meta.status)) return null;
  const state = workflow.state(meta.status);
  return state?.agent && state.prompt !== undefined ? state.agent : null;
}

function spawnOf(meta: TaskMeta, role: AgentRole): string | null {
  return role === 'worker' ? meta.worker_spawn : meta.reviewer_spawn;
}

/** How long after its last change a task whose agent is not recorded yet is taken as starting. */
export const STARTING_MS = 60_000;

/**
 * The face of a row given the agents alive now (see `Liveness`). Starting: see `startingSince`;
 * an agent that has not come a minute later is dead.
 */
export function livenessOf(row: TaskRow, alive: readonly AgentRole[], now: number = Date.now()): Liveness {
  if (alive.length > 0) return 'alive';
  if (!row.active) return 'none';
  if (row.startingSince !== null && now - row.startingSince < STARTING_MS) return 'starting';
  return row.expected.length > 0 ? 'dead' : 'none';
}

/** Which rows the table shows. */
export type RowFilter = 'all' | 'active' | 'done';

export const FILTERS: readonly RowFilter[] = ['all', 'active', 'done'];

/** Active first, then terminal; most recently updated first within each. */
export function compareRows(a: TaskRow, b: TaskRow): number {
  // ISO timestamps order as plain strings; localeCompare would cost a second on 10,000 rows.
  const byTime = a.meta.updated_at < b.meta.updated_at ? 1 : a.meta.updated_at > b.meta.updated_at ? -1 : 0;
  return Number(a.terminal) - Number(b.terminal) || byTime || (a.meta.id < b.meta.id ? -1 : a.meta.id > b.meta.id ? 1 : 0);
}

/** The rows to show, sorted, after the filter and the `/` search (branch or summary, case-insensitive). */
export function visibleRows(rows: Iterable<TaskRow>, filter: RowFilter, search: string): TaskRow[] {
  const needle = search.trim().toLowerCase();
  const kept: TaskRow[] = [];
  for (const row of rows) {
    if (filter === 'active' && row.terminal) continue;
    if (filter === 'done' && !row.terminal) continue;
    if (needle && !row.meta.branch.toLowerCase().includes(needle) && !row.meta.summary.toLowerCase().includes(needle)) continue;
    kept.push(row);
  }
  return kept.sort(compareRows);
}

/** The worktree's number in the pool (`<project>--<n>`), or null without one. */
export function workspaceNumber(workspace: string | null): number | null {
  const match = workspace ? /--(\d+)\/?$/.exec(workspace) : null;
  return match ? Number(match[1]) : null;
}

/** The pull request's number, read from its URL (`…/pull/12`). */
export function pullRequestNumber(url: string): number | null {
  const match = /\/pull\/(\d+)/.exec(url);
  return match ? Number(match[1]) : null;
}

/** The liveness icon of a row. */
export function livenessIcon(liveness: Liveness): string {
  return liveness === 'alive' ? '●' : liveness === 'dead' ? '✗' : liveness === 'starting' ? '◌' : '○';
}
