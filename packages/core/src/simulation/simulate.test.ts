import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classicWorkflow } from '../workflow/classic.js';
import { defaultWorkflow } from '../workflow/default.js';
import type { WorkflowInput } from '../workflow/definition.js';
import { parseScript } from './script.js';
import { simulateWorkflow } from './simulate.js';

const trace = (result: Awaited<ReturnType<typeof simulateWorkflow>>) => result.steps.map((s) => [s.event, s.status, ...s.lines.map((l) => l.trim())]);

let home: string | undefined;
beforeEach(() => {
  home = process.env.ORANGE_HOME;
  process.env.ORANGE_HOME = join(tmpdir(), 'orange-simulation-must-not-exist');
});
afterEach(() => {
  process.env.ORANGE_HOME = home;
});

describe('simulateWorkflow', () => {
  it('walks the default workflow from the issue example: a failed review sends the task back to working', async () => {
    const result = await simulateWorkflow(defaultWorkflow, 'request working; exit worker; review FAIL; exit reviewer');
    expect(trace(result)).toEqual([
      ['create', 'planning', 'created in pending', 'pending → planning (spawn); actions: acquire_workspace, spawn_agent'],
      ['request working', 'working', 'planning → working (request)'],
      ['exit worker', 'agent-review', expect.stringMatching(/^worker exited: advance to agent-review \(/), 'working → agent-review (auto); actions: spawn_reviewer'],
      ['review FAIL', 'agent-review', '## Review: Verdict: FAIL'],
      // The worker exited earlier, so notify_worker starts one, as the tmux plugin does.
      ['exit reviewer', 'working', expect.stringMatching(/^reviewer exited: advance to working \(/), '(no worker to notify: one is started)', 'agent-review → working (auto); actions: kill_reviewer, notify_worker'],
    ]);
    expect(result.task).toMatchObject({ status: 'working', review_round: 1, crash_count: 0 });
    expect(existsSync(join(tmpdir(), 'orange-simulation'))).toBe(false);
  });

  it('prints each refusal with the check that refused it, and a crash when an agent leaves no artifact', async () => {
    const result = await simulateWorkflow(defaultWorkflow, [
      'request reviewing',
      'gate plan fail no APPROACH line',
      'request working',
      'exit worker',
      'veto the pool is full',
      'gate plan pass',
      'request working',
    ].join('\n'));
    const lines = result.steps.flatMap((s) => s.lines.map((l) => l.trim()));
    expect(lines).toContain('refused planning → reviewing (map): not a transition of workflow default (from planning: working, clarification, cancelled)');
    expect(lines).toContain('refused planning → working (gate): no APPROACH line');
    expect(lines).toContain('crash 1 in planning: process exited without its artifact (no APPROACH line)');
    expect(lines).toContain('refused planning → working (veto): the pool is full');
    expect(result.task).toMatchObject({ status: 'planning', crash_count: 1 });
  });

  it('shows a failed action, respawns a crashed worker, and takes guards from fields set by the script', async () => {
    const result = await simulateWorkflow(defaultWorkflow, 'fail spawn_agent no harness; exit worker; respawn; respawn; set review_round 2; request working');
    expect(trace(result)).toEqual([
      ['fail spawn_agent no harness', '(no task yet)', 'spawn_agent fails the next time it runs'],
      ['create', 'planning', 'created in pending', 'action spawn_agent failed: no harness (the task is flagged for attention)', 'pending → planning (spawn); actions: acquire_workspace, spawn_agent'],
      ['exit worker', 'planning', 'no worker is running: nothing happens'],
      ['respawn', 'planning', 'actions: spawn_agent'],
      ['respawn', 'planning', 'refused: the worker of the task is still running'],
      ['set review_round 2', 'planning', 'review_round = 2'],
      ['request working', 'working', 'planning → working (request)'],
    ]);
    const guarded = await simulateWorkflow(defaultWorkflow, 'request working; exit worker; set review_round 2; review FAIL; request working');
    expect(guarded.steps.at(-1)?.lines.map((l) => l.trim())).toEqual([expect.stringMatching(/^refused agent-review → working \(guard\): guard "review_round < 2" does not hold/)]);
  });

  it('runs a custom workflow with a merge action and a plugin gate, stubbed', async () => {
    const autonomous: WorkflowInput = {
      name: 'autonomous',
      initial: 'pending',
      start: 'working',
      states: { pending: {}, working: { agent: 'worker' }, done: { terminal: true }, cancelled: { terminal: true } },
      transitions: [
        { from: 'pending', to: 'working', hooks: ['acquire_workspace', 'spawn_agent'] },
        { from: 'working', to: 'done', gate: 'tests-pass', hooks: ['merge', 'kill_session', 'release_workspace', 'delete_remote_branch'] },
        { from: 'pending', to: 'cancelled' },
        { from: 'working', to: 'cancelled', hooks: ['kill_session', 'release_workspace'] },
      ],
      exit: { pending: { otherwise: 'mark' }, working: { advance: ['done'], otherwise: 'crash', crashTo: 'cancelled' } },
      create: { pending: {} },
      prompts: {},
    };
    const result = await simulateWorkflow({ ...autonomous, transitions: [...autonomous.transitions, { from: 'working', to: 'cancelled', crash: true }] }, 'gate tests-pass fail 2 tests failed; exit worker; respawn; gate tests-pass pass; exit worker');
    expect(result.task.status).toBe('done');
    expect(result.steps.at(-1)?.lines.map((l) => l.trim())).toContain('working → done (auto); actions: merge, kill_session, release_workspace, delete_remote_branch');
  });
});

describe('parseScript', () => {
  it('splits on ; and new lines, skips comments, and refuses an unknown event naming its position', () => {
    expect(parseScript('request working # plan written\nexit worker;  review pass').map((s) => s.event)).toEqual([
      { kind: 'request', status: 'working' },
      { kind: 'exit', role: 'worker' },
      { kind: 'review', verdict: 'pass' },
    ]);
    expect(() => parseScript('request working; jump')).toThrow(/^script event 2 "jump": unknown event \(events: create \[STATUS\]; /);
    expect(() => parseScript('exit planner')).toThrow('script event 1 "exit planner": the role is worker or reviewer');
    expect(() => parseScript('set status done')).toThrow(/status belongs to the engine/);
    expect(() => parseScript(' ; ')).toThrow('the script is empty');
  });
});
