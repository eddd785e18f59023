import { defaultWorkflow, Workflow, type AgentRole, type AttachInfo, type CancelCheck, type HistoryEvent, type PullRequestReading, type TaskMeta, type TaskRef, type WorkflowInput } from '@orange/core';
import type { LiveValue } from '../src/components/app.js';
import type { CreateRequest, DashboardActions } from '../src/task-actions.js';
import type { FeedSnapshot, TaskSource } from '../src/task-feed.js';
import { rowOf, type TaskRow } from '../src/task-row.js';

const workflows = new Map<WorkflowInput, Workflow>();

/** A built-in workflow, its plugins' gates and actions taken as given (the pipeline's come from its plugin). */
export function workflowOf(input: WorkflowInput): Workflow {
  let workflow = workflows.get(input);
  if (!workflow) {
    const transitions = input.transitions as ReadonlyArray<{ gate?: string; hooks?: readonly string[] }>;
    const gates = new Set(transitions.flatMap((t) => (t.gate ? [t.gate] : [])));
    const actions = new Set(transitions.flatMap((t) => t.hooks ?? []));
    workflow = Workflow.load(input, { gates, actions });
    workflows.set(input, workflow);
  }
  return workflow;
}

let counter = 0;

/**
 * A row as the feed makes it for a task of `workflow` (the default one unless given): the same
 * `rowOf`, with the workflow's real targets; `extra` then sets what the runtime and the slots
 * would have said (liveness, live agents, PR state, diff).
 */
export function fakeRow(fields: Partial<TaskMeta> & { status: string }, extra: Partial<TaskRow> = {}, workflow: WorkflowInput = defaultWorkflow): TaskRow {
  counter++;
  const id = (fields.id ?? `T${String(counter).padStart(20, '0')}`).slice(0, 21);
  const meta = {
    id,
    project: 'app',
    branch: `branch-${counter}`,
    harness: null,
    review_harness: null,
    effort: null,
    review_effort: null,
    review_round: 0,
    crash_count: 0,
    summary: `summary ${counter}`,
    workspace: null,
    tmux_session: null,
    pr_url: null,
    attention: null,
    worker_spawn: null,
    reviewer_spawn: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
    ...fields,
  } as TaskMeta;
  const loaded = workflowOf(workflow);
  const targets = [...new Set(loaded.from(meta.status).map((t) => t.to))];
  return { ...rowOf(loaded, targets, { meta, tampered: [] }), ...extra };
}

/** A task source holding rows in memory; `set` replaces them as the watcher would. */
export class FakeSource implements TaskSource {
  private current: FeedSnapshot;
  private readonly listeners = new Set<() => void>();

  constructor(rows: readonly TaskRow[]) {
    this.current = { rows: new Map(rows.map((r) => [r.meta.id, r])), loaded: true, unreadable: 0, revisions: new Map() };
  }

  snapshot(): FeedSnapshot {
    return this.current;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(rows: readonly TaskRow[]): void {
    this.current = { ...this.current, rows: new Map(rows.map((r) => [r.meta.id, r])) };
    for (const l of this.listeners) l();
  }
}

/** Actions that record what they were asked; `refuse` makes a call throw the given error. */
export class RecordingActions implements DashboardActions {
  readonly calls: string[] = [];
  refuse = new Map<string, Error>();

  private async record(name: string, detail: string): Promise<string> {
    this.calls.push(`${name} ${detail}`.trim());
    const refusal = this.refuse.get(name);
    if (refusal) throw refusal;
    return `${name} done`;
  }

  spawn = (ref: TaskRef) => this.record('spawn', ref.id);
  respawn = (ref: TaskRef) => this.record('respawn', ref.id);
  /** The task `create` says it made. */
  created: TaskRef = { project: 'app', id: 'NEWTASK00000000000001' };
  create = async (request: CreateRequest) => ({ message: await this.record('create', JSON.stringify(request)), ref: this.created });
  requestChanges = (ref: TaskRef, text: string) => this.record('requestChanges', `${ref.id} ${text}`);
  clarify = (ref: TaskRef, answer: string) => this.record('clarify', `${ref.id} ${answer}`);
  /** What `checkMerge` finds: set `forced` for a task the review has not passed. */
  forced = false;
  checkMerge = async (ref: TaskRef) => {
    await this.record('checkMerge', ref.id);
    return { forced: this.forced };
  };
  merge = (ref: TaskRef, force: boolean) => this.record('merge', `${ref.id}${force ? ' forced' : ''}`);
  /** The URL `pullRequest` answers with; null: it creates one. */
  prUrl: string | null = null;
  pullRequest = async (ref: TaskRef) => {
    await this.record('pullRequest', ref.id);
    return { url: this.prUrl ?? `https://github.example/o/r/pull/7`, created: this.prUrl === null };
  };
  /** What `syncPullRequest` answers: the sentence of a state it applied, or null (nothing to apply). */
  synced: string | null = null;
  /** The pull request `syncPullRequest` read (null: it could not be read). */
  read: PullRequestReading | null = null;
  syncPullRequest = async (ref: TaskRef) => {
    await this.record('syncPullRequest', ref.id);
    return { applied: this.synced, read: this.read };
  };
  /** What `checkCancel` finds: set it for a cancel that stops or abandons (a pipeline task). */
  cancelCheck: ((ref: TaskRef) => CancelCheck) | null = null;
  checkCancel = async (ref: TaskRef): Promise<CancelCheck> => {
    await this.record('checkCancel', ref.id);
    return this.cancelCheck?.(ref) ?? { to: 'cancelled', kind: 'cancel', question: `Cancel task ${ref.id}?` };
  };
  cancel = (ref: TaskRef) => this.record('cancel', ref.id);
  checkDelete = async (ref: TaskRef) => void (await this.record('checkDelete', ref.id));
  delete = (ref: TaskRef) => this.record('delete', ref.id);
  choices = async () => ({ projects: ['app', 'web'], harnesses: ['claude', 'command'] });
  /** TASK.md's body per task id (else a `## Context` naming the task). */
  bodies = new Map<string, string>();
  taskFile = async (ref: TaskRef) => this.bodies.get(ref.id) ?? `## Context\n\nbody of ${ref.id}\n`;
  history = async (): Promise<HistoryEvent[]> => [{ type: 'status.changed', timestamp: '2026-01-01T10:00:00.000Z', from: 'pending', to: 'planning', cause: 'spawn' }];
  capture = async (_meta: TaskMeta, role: AgentRole) => `${role} pane line\n\u001b[31mred\u001b[0m`;
  diffStat = async () => null;
  /** What `diff` answers (null: no worktree). */
  diffText: string | null = null;
  diff = async () => this.diffText;
}

/** Who runs the monitor, fixed. */
export const monitorHere: LiveValue<string> = { get: () => 'monitor: here', subscribe: () => () => undefined };

/** A runtime that has not said how it attaches (yet). */
export const attachUnknown: LiveValue<AttachInfo | null> = { get: () => null, subscribe: () => () => undefined };
