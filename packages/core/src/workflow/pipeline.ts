import type { Actor, WorkflowInput } from './definition.js';

/**
 * Every state a pipeline task passes through with its driver running (stop_pipeline ends it).
 * stop_pipeline and start_pipeline also keep `stop_reason`: set on every move into `stopped`, cleared on every move out.
 */
const RUNNING = ['classifying', 'routing', 'executing', 'retrying', 'escalating', 'verifying'] as const;

/**
 * Seed 002: classify → route → execute phases → verify, with retries, model-tier escalation, a
 * budget and a circuit breaker. One process per task (the pipeline driver, started by
 * `start_pipeline` in the task's tmux session) runs the headless agents and asks for every
 * transition; conditions that depend on configuration are gates the pipeline plugin registers,
 * conditions on what the driver recorded are guards. Departures from the seed (docs/workflows.md):
 * `failed` is reached from `retrying` (circuit breaker) and `escalating` (top tier used up)
 * instead of `stopped`; `stopped` keeps cancel and budget, may be entered from every running
 * state (cancel), and is left by `orange task resume`, so it is not terminal; a stopped task
 * nobody will resume is abandoned into `failed` (`orange task cancel` again), which frees its worktree.
 */
export const pipelineWorkflow: WorkflowInput = {
  name: 'pipeline',
  description: 'Seed 002: classify → route → execute phases headless → verify; retry, escalate the model tier, budget, circuit breaker, checkpoint / resume / cancel.',
  initial: 'created',
  start: 'classifying',
  states: {
    created: { description: 'Task id generated, checkpoint initialized; waiting for a workspace.' },
    classifying: { agent: 'worker', description: 'Running the intent classifier.' },
    awaiting_clarification: { description: 'Confidence too low; waiting for `orange task clarify`.' },
    routing: { agent: 'worker', description: 'Mapping the intent to a pipeline of phases and a model tier.' },
    executing: { agent: 'worker', description: 'Running the current phase as a headless agent.' },
    retrying: { agent: 'worker', description: 'A phase or the verification failed; choosing how to retry.' },
    escalating: { agent: 'worker', description: 'Moving to the next model tier.' },
    verifying: { agent: 'worker', description: 'Running the configured checks in the worktree.' },
    completed: { description: 'All phases done, verified; waiting for a person to merge it (`orange task merge`) or open its pull request.' },
    done: { terminal: true, description: 'Merged.' },
    failed: { terminal: true, description: 'Retries used up at the top tier, or the circuit breaker tripped.' },
    stopped: { description: 'Cancelled or over budget; `orange task resume` continues from the checkpoint.' },
  },
  transitions: [
    { from: 'created', to: 'classifying', by: ['person', 'orange'], hooks: ['acquire_workspace', 'start_pipeline'], description: 'read configs, create checkpoint' },
    { from: 'created', to: 'stopped', by: ['person'], hooks: ['stop_pipeline'] },
    { from: 'classifying', to: 'routing', by: ['orange'], gate: 'pipeline-confident', description: 'record intent in checkpoint' },
    { from: 'classifying', to: 'awaiting_clarification', by: ['orange'], gate: 'pipeline-unsure', description: 'ask for more detail' },
    { from: 'awaiting_clarification', to: 'classifying', by: ['person'], hooks: ['start_pipeline'], description: 're-classify with the added context' },
    { from: 'awaiting_clarification', to: 'stopped', by: ['person'], hooks: ['stop_pipeline'] },
    { from: 'routing', to: 'executing', by: ['orange'], gate: 'pipeline-routed', description: 'select pipeline and tier, record in checkpoint' },
    { from: 'executing', to: 'verifying', by: ['orange'], gate: 'pipeline-phases-done', description: 'every phase succeeded' },
    { from: 'executing', to: 'retrying', by: ['orange'], guard: 'phase_result == "failed"', description: 'phase failed: log it, choose the retry' },
    { from: 'retrying', to: 'executing', by: ['orange'], gate: 'pipeline-same-tier', hooks: ['next_attempt'], description: 'attempts left at this tier' },
    { from: 'retrying', to: 'escalating', by: ['orange'], gate: 'pipeline-tier-used-up', description: 'attempts at this tier used up' },
    { from: 'retrying', to: 'failed', by: ['orange'], gate: 'pipeline-breaker-tripped', hooks: ['stop_pipeline', 'release_workspace'], description: 'circuit breaker: full diagnostics' },
    { from: 'escalating', to: 'executing', by: ['orange'], gate: 'pipeline-higher-tier', hooks: ['escalate_tier'], description: 're-run the phase on the next tier' },
    { from: 'escalating', to: 'failed', by: ['orange'], gate: 'pipeline-top-tier', hooks: ['stop_pipeline', 'release_workspace'], description: 'top tier used up' },
    { from: 'verifying', to: 'completed', by: ['orange'], guard: 'verification == "passed"', hooks: ['save_memory', 'stop_pipeline', 'release_workspace'], description: 'evaluate evolution, save memory (.orange/memory/)' },
    { from: 'verifying', to: 'retrying', by: ['orange'], guard: 'verification == "failed"', description: 'feed the check output into the retry' },
    ...RUNNING.map((from) => ({ from, to: 'stopped', by: ['person', 'orange'] as Actor[], hooks: ['stop_pipeline'], description: 'cancel or budget exceeded: keep the checkpoint' })),
    // A task cancelled in `created` never had a worktree: resuming acquires one (a no-op when held).
    ...(['classifying', 'executing', 'verifying'] as const).map((to) => ({
      from: 'stopped',
      to,
      by: ['person'] as Actor[],
      gate: 'pipeline-resumable',
      hooks: ['acquire_workspace', 'start_pipeline'],
      description: 'resume from the checkpoint',
    })),
    { from: 'stopped', to: 'failed', by: ['person'], hooks: ['stop_pipeline', 'release_workspace'], description: 'abandoned (task cancel on a stopped task): the checkpoint is kept, the worktree freed' },
    // Verified work reaches the default branch only through a person (or its pull request, merged).
    { from: 'completed', to: 'done', by: ['person', 'orange'], hooks: ['delete_remote_branch'], description: 'merged: orange task merge, or its pull request merged' },
    { from: 'completed', to: 'failed', by: ['person'], description: 'abandoned (task cancel on a completed task): its branch is kept, never merged' },
  ],
  // The driver asks for every transition itself; an exit it did not announce (killed) is only
  // marked, and `orange task resume` restarts it.
  exit: Object.fromEntries(['created', 'awaiting_clarification', 'stopped', 'completed', ...RUNNING].map((s) => [s, { otherwise: 'mark' as const }])),
  create: { created: { hooks: [] } },
  prompts: {
    classify: `Classify this coding task by intent.

Task: {summary}

Context:
{context}

Questions asked before, and the answers given:
{questions}
{memory}
Answer with one JSON object on the last line, nothing after it:
{"intent": "<one of: {intents}>", "confidence": <0..1>, "questions": ["<what you would need to know to be sure>"]}
Give questions only when you are not sure: at most three, one line each, for a person to answer.
`,
    phase: `You are running phase "{phase}" ({phase_number} of {phase_count}) of a coding task.

Task: {summary}
Branch: {branch}
Phases: {phases}. Done so far: {phases_done}.

Context:
{context}
{memory}
Do only this phase's work in this repository and commit it. Do NOT push.
{feedback}`,
  },
  fields: {
    intent: '',
    confidence: null,
    pipeline_phases: '',
    phase: '',
    phases_done: '',
    phase_result: '',
    attempt: 0,
    tier: '',
    consecutive_failures: 0,
    cost_total_usd: 0,
    budget_usd: 0,
    verification: '',
    last_failure: '',
    stop_reason: '',
  },
};
