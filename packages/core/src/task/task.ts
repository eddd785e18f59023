import { z } from 'zod';

/** 21 characters of [0-9A-Za-z]: safe in paths, branch names and tmux targets. */
export const TASK_ID_PATTERN = /^[0-9A-Za-z]{21}$/;

const nullableString = z.string().nullable().default(null);
const count = z.number().int().nonnegative().default(0);
// YAML loaded with the core schema keeps timestamps as strings; accept Dates from older writers too.
const timestamp = z.preprocess((v) => (v instanceof Date ? v.toISOString() : v), z.string());

/**
 * TASK.md frontmatter. Missing fields take their defaults so old files keep working;
 * a workflow may add its own scalar fields (kept as they are).
 */
export const TaskMetaSchema = z
  .object({
    id: z.string().regex(TASK_ID_PATTERN, 'must be 21 characters of [0-9A-Za-z]'),
    project: z.string().min(1),
    branch: z.string().min(1),
    harness: nullableString,
    review_harness: nullableString,
    effort: nullableString,
    review_effort: nullableString,
    status: z.string().min(1),
    /** The workflow the task was created with and keeps for life; null for a task from before (its project's). */
    workflow: nullableString,
    review_round: count,
    crash_count: count,
    summary: z.string().default(''),
    workspace: nullableString,
    tmux_session: nullableString,
    pr_url: nullableString,
    /** Set when a hook failed after a status write: the task needs a human look. */
    attention: nullableString,
    /** Id of the live worker / reviewer agent spawn; null when none is running. */
    worker_spawn: nullableString,
    reviewer_spawn: nullableString,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]));

export type TaskMeta = z.infer<typeof TaskMetaSchema>;

/** A task: its frontmatter and its markdown body, as read from TASK.md. */
export interface Task {
  readonly meta: TaskMeta;
  readonly body: string;
}

/** Keys written first, in this order, so TASK.md stays readable; workflow fields follow. */
export const TASK_META_ORDER = [
  'id',
  'project',
  'branch',
  'status',
  'workflow',
  'summary',
  'harness',
  'review_harness',
  'effort',
  'review_effort',
  'review_round',
  'crash_count',
  'workspace',
  'tmux_session',
  'pr_url',
  'attention',
  'worker_spawn',
  'reviewer_spawn',
  'created_at',
  'updated_at',
] as const;

export type AgentRole = 'worker' | 'reviewer';
