import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classicWorkflow } from '../workflow/classic.js';
import { defaultWorkflow } from '../workflow/default.js';
import type { WorkflowInput } from '../workflow/definition.js';
import { parseConfig } from '../config/index.js';
import type { OrangePlugin } from '../plugin/index.js';
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
        { from: 'pending', to: 'working', by: ['agent', 'person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },
        { from: 'working', to: 'done', by: ['agent', 'person', 'orange'], gate: 'tests-pass', hooks: ['merge', 'kill_session', 'release_workspace', 'delete_remote_branch'] },
        { from: 'pending', to: 'cancelled', by: ['agent', 'person', 'orange'] },
        { from: 'working', to: 'cancelled', by: ['agent', 'person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
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

describe("simulateWorkflow with the config's plugins", () => {
  /** A team's rules: done needs an APPROVED file in the worktree; a plugin gate; an action with a side effect. */
  const team = (acted: string[]): OrangePlugin => ({
    name: 'team-rules',
    apply(orange) {
      orange.hooks.beforeTransition.tapPromise('team-rules', async (e) =>
        e.to === 'done' && !existsSync(join(String(e.task.meta.workspace), 'APPROVED')) ? 'no APPROVED file in the worktree' : undefined,
      );
      orange.registerGate('tests-pass', (ctx) => (ctx.task.meta.summary.includes('green') ? { ok: true } : { ok: false, reason: 'the team gate ran: 3 tests fail' }));
      orange.hooks.actions.for('spawn_agent').tapPromise('team-rules', async () => void acted.push('spawn_agent'));
    },
  });

  it("calls a team's veto for real: the person's done is refused until the worktree holds APPROVED; the plugin's own actions never run", async () => {
    const acted: string[] = [];
    const config = parseConfig({ defaults: false, plugins: [team(acted)] }, null);
    const homes = () => readdirSync(tmpdir()).filter((f) => f.startsWith('orange-simulation-'));
    const before = homes();
    const script = 'request working; exit worker; review PASS; exit reviewer; request done; merge; file APPROVED yes; merge';
    const result = await simulateWorkflow(defaultWorkflow, script, { config });
    const lines = result.steps.flatMap((s) => s.lines.map((l) => l.trim()));
    expect(lines).toContain("refused reviewing → done (authority): done is a person's move, not the task's agent's (orange task merge " + result.task.id + ')');
    expect(lines).toContain('refused reviewing → done (veto): no APPROVED file in the worktree');
    // The refused merge never reached the scm; the approved one did, as the move's effect.
    expect(result.steps.at(-3)).toMatchObject({ event: 'merge', status: 'reviewing', lines: ['  refused reviewing → done (veto): no APPROVED file in the worktree'] });
    expect(result.steps.at(-1)).toMatchObject({ event: 'merge', status: 'done' });
    expect(result.steps.at(-1)?.lines.map((l) => l.trim())).toEqual(['reviewing → done (request); actions: merge, kill_session, release_workspace, delete_remote_branch, spawn_next']);
    expect(acted).toEqual([]);
    // Its throwaway home is gone.
    expect(homes()).toEqual(before);
  });

  it("runs a plugin's gate instead of passing it, unless the script answers it", async () => {
    const config = parseConfig({ defaults: false, plugins: [team([])] }, null);
    const gated: WorkflowInput = { ...classicWorkflow, name: 'gated', transitions: classicWorkflow.transitions.map((t) => (t.from === 'working' && t.to === 'agent-review' ? { ...t, gate: 'tests-pass' } : t)) };
    const failed = await simulateWorkflow(gated, 'request agent-review', { config });
    expect(failed.steps.at(-1)?.lines.map((l) => l.trim())).toEqual(['refused working → agent-review (gate): the team gate ran: 3 tests fail']);
    const answered = await simulateWorkflow(gated, 'gate tests-pass pass; request agent-review', { config });
    expect(answered.task.status).toBe('agent-review');
  });

  it('refuses a script naming a gate, a status or an action the workflow lacks, and keeps the events after a # comment', async () => {
    await expect(simulateWorkflow(defaultWorkflow, 'gate approvd pass')).rejects.toThrow('script event 1 "gate approvd pass": no transition of workflow default has the gate approvd (gates: plan, handoff, review-pass, review-fail)');
    await expect(simulateWorkflow(defaultWorkflow, 'request workin')).rejects.toThrow(/script event 1 "request workin": workflow default has no status workin \(statuses: pending, planning/);
    await expect(simulateWorkflow(defaultWorkflow, 'fail spawn_agnet')).rejects.toThrow(/workflow default runs no action spawn_agnet \(actions: /);
    const commented = await simulateWorkflow(defaultWorkflow, 'request working # the plan is written; exit worker');
    expect(commented.steps.map((s) => s.event)).toEqual(['create', 'request working', 'exit worker']);
    expect(commented.task.status).toBe('agent-review');
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
