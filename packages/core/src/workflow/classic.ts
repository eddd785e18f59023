import type { WorkflowInput } from './definition.js';

/**
 * Seed 000: no planning phase; the worker is killed when it hands off and a fresh worker is
 * spawned to fix a failed review; stuck can go back to working or to agent-review.
 * Hooks are not tabled in the seed; these follow its prose (kill the worker, spawn the reviewer).
 * Departure: `reviewing → stuck`, so that a pull request reaction that gives up can hand the task
 * to a person (no agent runs in reviewing here; `stuck → working` starts a fresh worker).
 */
export const classicWorkflow: WorkflowInput = {
  name: 'classic',
  description: 'Worker → reviewer → human; the worker is killed and respawned between rounds.',
  initial: 'pending',
  start: 'working',
  states: {
    pending: { description: 'Waiting for a workspace.' },
    clarification: { agent: 'worker', prompt: 'clarification', respawnPrompt: 'clarification' },
    working: {
      agent: 'worker',
      prompt: [{ guard: 'review_round > 0', prompt: 'worker_fix' }, { prompt: 'worker' }],
      respawnPrompt: [{ guard: 'review_round > 0', prompt: 'worker_fix' }, { prompt: 'worker' }],
    },
    'agent-review': { agent: 'reviewer', prompt: 'reviewer', respawnPrompt: 'reviewer' },
    reviewing: { agent: null },
    stuck: { agent: 'worker', prompt: 'stuck', respawnPrompt: 'stuck' },
    done: { terminal: true },
    cancelled: { terminal: true },
  },
  transitions: [
    { from: 'pending', to: 'working', by: ['person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },
    { from: 'pending', to: 'clarification', by: ['person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },
    { from: 'pending', to: 'cancelled', by: ['person'] },
    { from: 'clarification', to: 'working', by: ['agent', 'person'] },
    { from: 'clarification', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'working', to: 'agent-review', by: ['agent', 'orange'], gate: 'handoff', hooks: ['kill_session', 'increment_review_round', 'spawn_reviewer'] },
    { from: 'working', to: 'clarification', by: ['agent'] },
    { from: 'working', to: 'stuck', by: ['agent', 'orange'] },
    { from: 'working', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'agent-review', to: 'reviewing', by: ['agent', 'orange'], gate: 'review-pass', hooks: ['kill_session'] },
    { from: 'agent-review', to: 'working', by: ['agent', 'orange'], gate: 'review-fail', guard: 'review_round < 2', hooks: ['kill_session', 'spawn_agent'] },
    { from: 'agent-review', to: 'stuck', by: ['agent', 'orange'], gate: 'review-fail', guard: 'review_round >= 2', hooks: ['kill_session'] },
    { from: 'agent-review', to: 'stuck', crash: true, hooks: ['kill_session'] },
    { from: 'agent-review', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'reviewing', to: 'done', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'reviewing', to: 'stuck', by: ['person', 'orange'] },
    { from: 'reviewing', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'stuck', to: 'working', by: ['agent', 'person'], hooks: ['kill_session', 'spawn_agent'] },
    { from: 'stuck', to: 'agent-review', by: ['agent', 'person'], hooks: ['kill_session', 'increment_review_round', 'spawn_reviewer'] },
    { from: 'stuck', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    // A person's confirmed force-merge, past the review (`orange task merge --force`, the dashboard's m).
    { from: 'clarification', to: 'done', force: true, hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'working', to: 'done', force: true, hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'agent-review', to: 'done', force: true, hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'stuck', to: 'done', force: true, hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
  ],
  exit: {
    pending: { otherwise: 'mark' },
    clarification: { otherwise: 'mark' },
    working: { advance: ['agent-review'], otherwise: 'crash', crashTo: 'stuck' },
    'agent-review': { advance: ['reviewing', 'working', 'stuck'], otherwise: 'crash', crashTo: 'stuck', respawn: true },
    reviewing: { otherwise: 'mark' },
    stuck: { otherwise: 'mark' },
  },
  create: {
    pending: { hooks: [] },
    clarification: { hooks: ['acquire_workspace', 'spawn_agent'] },
    'agent-review': { hooks: ['acquire_workspace', 'increment_review_round', 'spawn_reviewer'] },
    reviewing: { hooks: [] },
  },
  prompts: {
    worker: `You are implementing a task.

Task: {summary}
Branch: {branch}

Instructions:
1. Read TASK.md for requirements (## Context, ## Notes)
2. Implement, test, commit
3. When done, write ## Handoff with: orange task section set Handoff --file -
   (the text on stdin; or --text "..."):
   DONE: what you completed
   REMAINING: what's left (if any)
   DECISIONS: choices you made and why
   UNCERTAIN: open questions
4. Run: orange task update --status agent-review

Rules:
- Do NOT push to remote
- Do NOT set --status reviewing (always use agent-review)
- Do NOT try to finish or cancel the task: done and cancelled are a person's moves
- You MUST write ## Handoff before setting status
  (the command will fail if ## Handoff is missing)
`,
    worker_fix: `You are fixing issues found in review.

Task: {summary}
Branch: {branch}
Review round: {review_round}

Instructions:
1. Read ## Review in TASK.md — it contains specific feedback
2. Fix each issue raised
3. Update ## Handoff with what you changed: orange task section set Handoff --file -
4. Run: orange task update --status agent-review

Rules:
- Do NOT push to remote
- Do NOT set --status reviewing (always use agent-review)
- Do NOT try to finish or cancel the task: done and cancelled are a person's moves
- You MUST write ## Handoff before setting status
  (the command will fail if ## Handoff is missing)
`,
    reviewer: `You are reviewing implementation quality.

Task: {summary}
Branch: {branch}
Review round: {review_round} of 2

Instructions:
1. Read TASK.md for requirements (summary, ## Context)
2. Read ## Handoff for what was done and any uncertainties
3. Review: git diff {base}...HEAD
4. Write ## Review with: orange task section set Review --file -   (text on stdin):
   - Start with verdict: PASS or FAIL
   - List specific issues (if FAIL)
   - Note what was done well
5. Set status:
   - PASS: orange task update --status reviewing
   - FAIL: orange task update --status {working|stuck based on round}

Rules:
- You MUST write ## Review with a PASS or FAIL verdict before setting status
  (the command will fail if ## Review is missing or has no verdict)
- Do NOT post comments to GitHub
- Save ALL feedback to TASK.md only
`,
    clarification: `You are waiting for user input on this task.

Task: {summary}
Branch: {branch}

The task requirements are unclear. Write ## Questions with 2-3 specific
questions (orange task section set Questions --file -, the text on stdin),
then wait for the user to attach and discuss.

After discussion:
1. Update task summary: orange task update --summary "..."
2. Document approach in ## Notes: orange task section set Notes --file -
3. Resume: orange task update --status working
`,
    stuck: `You are resuming a stuck task.

Task: {summary}
Branch: {branch}
Review round: {review_round}

This task was stuck — either review failed twice or crashes occurred.
Read ## Review and ## Handoff for context on what went wrong.

Instructions:
1. Read TASK.md thoroughly
2. Address the issues that caused stuck state
3. Write ## Handoff with what you changed: orange task section set Handoff --file -
4. Run: orange task update --status agent-review
`,
  },
};
