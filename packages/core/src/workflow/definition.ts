import { z } from 'zod';

const name = z.string().min(1);

/** A prompt reference: one template name, or a list tried in order where the first whose guard holds wins. */
export const PromptRefSchema = z.union([
  name,
  z.array(z.object({ guard: z.string().optional(), prompt: name })).min(1),
]);

export const StateSchema = z.object({
  description: z.string().optional(),
  /** No transition may leave a terminal state. */
  terminal: z.boolean().default(false),
  /** Which agent is responsible while the task is in this state (its exit triggers the exit rule). */
  agent: z.enum(['worker', 'reviewer']).nullable().default(null),
  /** Prompt for an agent spawned into this state. */
  prompt: PromptRefSchema.optional(),
  /** Prompt for an agent respawned in this state after a crash. */
  respawnPrompt: PromptRefSchema.optional(),
});

/**
 * Who may take a move: `agent` — the task's own agent asks for it (`orange task update --status`,
 * `task complete`, `task stuck`); `person` — a person's command (`task merge`, `task cancel`,
 * `task request-changes`, `task move`, the dashboard); `orange` — Orange itself (exit rules,
 * hooks such as `spawn_next`, the pipeline's driver, pull request sync, reactions).
 */
export const ACTORS = ['agent', 'person', 'orange'] as const;
export type Actor = (typeof ACTORS)[number];

export const TransitionSchema = z.object({
  from: name,
  to: name,
  description: z.string().optional(),
  /**
   * Who may take this transition (at least one of `agent`, `person`, `orange`). Required for every
   * ordinary transition; a `crash` one is Orange's and a `force` one a person's without saying so.
   */
  by: z.array(z.enum(ACTORS)).min(1).optional(),
  /** Artifact gate by registered name (`plan`, `handoff`, `review-pass`, `review-fail`, or a plugin's). */
  gate: name.optional(),
  /** `field op literal`, e.g. `review_round < 2`. */
  guard: z.string().optional(),
  /** Transition actions, run in order after the status is written. */
  hooks: z.array(name).default([]),
  /**
   * Only the exit monitor takes this transition, when an agent crashed `limit` times with no
   * artifact; gate and guard are not checked (there is no artifact to check).
   */
  crash: z.boolean().default(false),
  /**
   * Only a person's explicit force takes this transition (`orange task merge --force`, the
   * dashboard's confirmed force-merge); gate and guard are not checked. Never offered as a target.
   */
  force: z.boolean().default(false),
});

export const ExitRuleSchema = z.object({
  /** Targets tried in order when the responsible agent exits; the first whose guard and gate pass wins. */
  advance: z.array(name).default([]),
  /** No target passed: `crash` counts a crash, `mark` only marks the session crashed. */
  otherwise: z.enum(['crash', 'mark']),
  /** Crashes in this state before the task is moved to `crashTo`. */
  crashLimit: z.number().int().positive().default(2),
  crashTo: name.optional(),
  /** After a crash below the limit, spawn the responsible agent again (seed 003: the reviewer). */
  respawn: z.boolean().default(false),
});

export const CreateRuleSchema = z.object({
  /** Actions run when a task is created in this status (and spawning was not turned off). */
  hooks: z.array(name).default([]),
});

export const WorkflowSchema = z.object({
  name,
  description: z.string().optional(),
  states: z.record(name, StateSchema),
  /** The status a task waits in until it is spawned (gets a workspace and an agent). */
  initial: name.default('pending'),
  /** The status a waiting task moves to when it is spawned. */
  start: name,
  transitions: z.array(TransitionSchema),
  exit: z.record(name, ExitRuleSchema),
  /** Statuses a task may be created in, with what runs then; `pending` must be one. */
  create: z.record(name, CreateRuleSchema),
  prompts: z.record(name, z.string()),
  /** Extra frontmatter fields this workflow uses, with their defaults. */
  fields: z.record(name, z.union([z.number(), z.string(), z.boolean(), z.null()])).default({}),
});

/** What an author writes (defaults may be omitted). */
export type WorkflowInput = z.input<typeof WorkflowSchema>;
/** A parsed workflow definition with defaults filled in. */
export type WorkflowDefinition = z.output<typeof WorkflowSchema>;
export type StateDefinition = z.output<typeof StateSchema>;
export type TransitionDefinition = z.output<typeof TransitionSchema>;
export type ExitRule = z.output<typeof ExitRuleSchema>;
export type PromptRef = z.output<typeof PromptRefSchema>;

/** Typed identity for authoring workflows in config files. */
export function defineWorkflow(workflow: WorkflowInput): WorkflowInput {
  return workflow;
}
