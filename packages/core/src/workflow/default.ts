import type { WorkflowInput } from './definition.js';

/**
 * Seed 003: planning, a persistent worker, a reviewer in a background window, at most two
 * review rounds. Departures from the seed's table, each forced by another seed rule:
 * - `increment_review_round` runs before `spawn_reviewer`, so the reviewer's window and prompt
 *   carry the round under review (`review-1`, "round 1 of 2") and the `review_round < 2` guard
 *   sends a second FAIL to stuck.
 * - `agent-review → reviewing` also runs `notify_worker`: the worker prompt promises a
 *   notification when review completes, pass or fail.
 * - Every way into `stuck` runs `notify_worker`: the seed spawns the stuck-fix agent on entering
 *   stuck; the persistent worker is told instead, and `notify_worker` spawns one (with the
 *   `stuck` prompt) when no worker is alive, e.g. after two crashes.
 * - `planning → stuck` and a gate-free `agent-review → stuck` exist only for the exit monitor's
 *   crash limit (the exit rules move a twice-crashed task to stuck; the table had no row for it).
 * - `reviewing → stuck` (with `notify_worker`, like every way into stuck): a pull request
 *   reaction that gives up (CI still failing after its retries, a review left unanswered) must be
 *   able to hand the task to a person from reviewing, where it waits while CI runs.
 */
export const defaultWorkflow: WorkflowInput = {
  name: 'default',
  description: 'Plan, implement with a persistent worker, background review (≤ 2 rounds), human merge.',
  initial: 'pending',
  start: 'planning',
  states: {
    pending: { description: 'Waiting for a workspace.' },
    planning: { agent: 'worker', prompt: 'worker', respawnPrompt: 'worker_respawn', description: 'The worker writes ## Plan.' },
    clarification: { agent: 'worker', prompt: 'clarification', respawnPrompt: 'clarification', description: 'Waiting for the user to answer ## Questions.' },
    working: { agent: 'worker', prompt: 'worker', respawnPrompt: 'worker_respawn', description: 'The worker implements and writes ## Handoff.' },
    'agent-review': { agent: 'reviewer', prompt: 'reviewer', respawnPrompt: 'reviewer', description: 'A reviewer agent writes ## Review.' },
    reviewing: { agent: 'worker', respawnPrompt: 'worker_respawn', description: 'A human reviews and merges.' },
    stuck: { agent: 'worker', prompt: 'stuck', respawnPrompt: 'stuck', description: 'Review failed twice or the agent crashed twice.' },
    done: { terminal: true },
    cancelled: { terminal: true },
  },
  transitions: [
    { from: 'pending', to: 'planning', by: ['person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },
    { from: 'pending', to: 'cancelled', by: ['person'] },
    { from: 'planning', to: 'working', by: ['agent', 'orange'], gate: 'plan' },
    { from: 'planning', to: 'clarification', by: ['agent'] },
    { from: 'planning', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'planning', to: 'stuck', crash: true, hooks: ['notify_worker'] },
    { from: 'clarification', to: 'planning', by: ['agent', 'person'] },
    { from: 'clarification', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'working', to: 'agent-review', by: ['agent', 'orange'], gate: 'handoff', hooks: ['increment_review_round', 'spawn_reviewer'] },
    { from: 'working', to: 'clarification', by: ['agent'] },
    { from: 'working', to: 'stuck', by: ['agent', 'orange'], hooks: ['notify_worker'] },
    { from: 'working', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'agent-review', to: 'reviewing', by: ['agent', 'orange'], gate: 'review-pass', hooks: ['kill_reviewer', 'notify_worker'] },
    { from: 'agent-review', to: 'working', by: ['agent', 'orange'], gate: 'review-fail', guard: 'review_round < 2', hooks: ['kill_reviewer', 'notify_worker'] },
    { from: 'agent-review', to: 'stuck', by: ['agent', 'orange'], gate: 'review-fail', guard: 'review_round >= 2', hooks: ['kill_reviewer', 'notify_worker'] },
    { from: 'agent-review', to: 'stuck', crash: true, hooks: ['kill_reviewer', 'notify_worker'] },
    { from: 'agent-review', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_reviewer', 'kill_session', 'release_workspace'] },
    { from: 'reviewing', to: 'working', by: ['person', 'orange'], hooks: ['notify_worker'] },
    { from: 'reviewing', to: 'stuck', by: ['person', 'orange'], hooks: ['notify_worker'] },
    { from: 'reviewing', to: 'done', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'reviewing', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'stuck', to: 'reviewing', by: ['agent', 'person'] },
    { from: 'stuck', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    // A person's confirmed force-merge, past the review (`orange task merge --force`, the dashboard's m).
    { from: 'planning', to: 'done', force: true, hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'clarification', to: 'done', force: true, hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'working', to: 'done', force: true, hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'agent-review', to: 'done', force: true, hooks: ['kill_reviewer', 'kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'stuck', to: 'done', force: true, hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
  ],
  exit: {
    pending: { otherwise: 'mark' },
    planning: { advance: ['working'], otherwise: 'crash', crashTo: 'stuck' },
    clarification: { otherwise: 'mark' },
    working: { advance: ['agent-review'], otherwise: 'crash', crashTo: 'stuck' },
    'agent-review': { advance: ['reviewing', 'working', 'stuck'], otherwise: 'crash', crashTo: 'stuck', respawn: true },
    reviewing: { otherwise: 'mark' },
    stuck: { otherwise: 'mark' },
  },
  create: {
    pending: { hooks: [] },
    clarification: { hooks: ['acquire_workspace', 'spawn_agent'] },
    // On-demand worker: only a reviewer runs; a FAIL's notify_worker spawns the worker.
    'agent-review': { hooks: ['acquire_workspace', 'increment_review_round', 'spawn_reviewer'] },
    reviewing: { hooks: [] },
  },
  prompts: {
    worker: `# Task: {summary}

Project: {project}
Branch: {branch}

Phase 1 — Plan:
1. Read TASK.md — summary in frontmatter, context in body
2. If branch is orange-tasks/<id>, rename it and run: orange task update --branch
3. If requirements unclear: add ## Questions (orange task section set Questions --file -),
   set --status clarification, wait
4. Write ## Plan (APPROACH + TOUCHING, optional RISKS) with:
   orange task section set Plan --file -   (the text on stdin; or --text "...")
5. orange task update --status working

Phase 2 — Implement:
6. Read project rules (AGENTS.md, etc.)
7. Implement according to ## Plan, test, commit
8. Write ## Handoff (at least one of DONE/REMAINING/DECISIONS/UNCERTAIN):
   orange task section set Handoff --file -
9. orange task update --status agent-review

After setting agent-review, WAIT. A reviewer will evaluate your work in a
separate session. When review completes, you'll receive a notification.
Then:
- Read ## Review in TASK.md
- If back in working status: fix the issues, update ## Handoff, set agent-review again
- If in reviewing status: review passed — you're done, no further action needed

Do NOT push to remote.
Do NOT set --status reviewing — always use agent-review.
Do NOT try to finish or cancel the task: done and cancelled are a person's moves
(orange task merge / cancel), and Orange refuses them from you.
`,
    worker_respawn: `# Resuming: {summary}

Project: {project}
Branch: {branch}
Status: {status}
Review round: {review_round}

Read TASK.md — check ## Plan, ## Handoff, and ## Review for previous progress.

If status is planning:
  1. Write ## Plan if not yet written: orange task section set Plan --file -
     (the text on stdin; or --text "...")
  2. orange task update --status working
  3. Continue to implementation

If status is working:
  1. Check ## Review — if present, fix issues from review feedback first
  2. Pick up where last session left off
  3. Write updated ## Handoff: orange task section set Handoff --file -
  4. orange task update --status agent-review

After setting agent-review, WAIT for reviewer notification.
Then read ## Review and act accordingly (see above).

Do NOT push to remote.
`,
    reviewer: `# Review: {summary}

Project: {project}
Branch: {branch}
Review round: {review_round} of 2

1. Read TASK.md for requirements, ## Plan for approach, ## Handoff for state
2. Review diff: git diff {base}...HEAD
3. Check UNCERTAIN items for correctness risks
4. Write ## Review with: orange task section set Review --file -   (text on stdin)
   - First line must be: "Verdict: PASS" or "Verdict: FAIL"
   - Then detailed, actionable feedback
5. Set status:
   - PASS → orange task update --status reviewing
   - FAIL, round < 2 → orange task update --status working
   - FAIL, round ≥ 2 → orange task update --status stuck

Do NOT post to GitHub. All feedback goes in TASK.md only.
The command rejects if ## Review is missing or has no verdict line.
`,
    clarification: `# Task: {summary}

Project: {project}
Branch: {branch}

Requirements unclear. Write ## Questions with 2-3 specific questions:
orange task section set Questions --file -   (text on stdin; or --text "...")
Run: orange task update --status clarification
Wait for user to attach and discuss.

After discussion:
1. orange task update --summary "..."
2. Write ## Plan (APPROACH + TOUCHING): orange task section set Plan --file -
3. orange task update --status planning
4. orange task update --status working
`,
    stuck: `# Stuck: {summary}

Project: {project}
Branch: {branch}
Review round: {review_round}

Task stuck — review failed twice or repeated crashes.
Read ## Review, ## Plan, and ## Handoff for what went wrong.

You are in an interactive session. Work WITH the human to fix the issues.

1. Summarize what went wrong and propose a fix approach
2. Wait for human input before making changes
3. After fixing, proactively ask: "Issue fixed — ready to send for review?"
4. When human confirms: orange task update --status reviewing
`,
  },
};
