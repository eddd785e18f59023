import { defineWorkflow } from '@orange/core';

/**
 * The smallest useful workflow: one worker implements and hands off, a human reviews, done.
 * No planning, no reviewer agent, no crash counting (a dead worker waits for `orange task respawn`).
 * Use it with `workflows: [minimal]` in orange.config.ts, then `workflow: 'minimal'`
 * (every project) or `"workflow": "minimal"` on one project in projects.json.
 */
export const minimal = defineWorkflow({
  name: 'minimal',
  description: 'working → reviewing → done: one worker, a human review.',
  initial: 'pending',
  start: 'working',
  states: {
    pending: { description: 'Waiting for a workspace.' },
    working: { agent: 'worker', prompt: 'worker', respawnPrompt: 'worker_respawn', description: 'The worker implements and writes ## Handoff.' },
    reviewing: { agent: 'worker', respawnPrompt: 'worker_respawn', description: 'A human reviews and merges.' },
    done: { terminal: true },
    cancelled: { terminal: true },
  },
  // `by`: who may take each move — the worker asks for review, a person merges or cancels, and
  // Orange itself starts queued tasks, applies exit rules and syncs pull requests.
  transitions: [
    { from: 'pending', to: 'working', by: ['person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },
    { from: 'pending', to: 'cancelled', by: ['person'] },
    { from: 'working', to: 'reviewing', by: ['agent', 'orange'], gate: 'handoff' },
    { from: 'working', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
    { from: 'reviewing', to: 'working', by: ['person', 'orange'], hooks: ['notify_worker'] },
    { from: 'reviewing', to: 'done', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace', 'delete_remote_branch', 'spawn_next'] },
    { from: 'reviewing', to: 'cancelled', by: ['person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
  ],
  exit: {
    pending: { otherwise: 'mark' },
    // A worker that exits with a valid ## Handoff is moved on; otherwise the task waits for a human.
    working: { advance: ['reviewing'], otherwise: 'mark' },
    reviewing: { otherwise: 'mark' },
  },
  create: {
    pending: { hooks: [] },
  },
  prompts: {
    worker: `# Task: {summary}

Project: {project}
Branch: {branch}

1. Read TASK.md (summary in the frontmatter, ## Context in the body)
2. Implement, test, commit
3. Write ## Handoff (at least one of DONE: / REMAINING: / DECISIONS: / UNCERTAIN:)
4. Run: orange task update --status reviewing

Do NOT push to remote.
`,
    worker_respawn: `# Resuming: {summary}

Project: {project}
Branch: {branch}
Status: {status}

Read TASK.md, check ## Handoff and any feedback, and continue where the last session stopped.
When done, update ## Handoff and run: orange task update --status reviewing
`,
  },
});
