import { rm } from 'node:fs/promises';
import { defaultWorkflow, newTaskId, newTaskMeta, noopActions, Orange, OrangePaths, parseSections, type WorkflowInput } from '@orange/core';
import { processAlive, tempDir, waitFor } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { BACK_TO_WORKING, CI_LINE, failedTest, passed, pastEscalation, prView, reactionEvents, reactionsBox, STUCK, WAIT, type ReactionsBox } from '../test/reactions-box.js';
import { reactions } from './index.js';

let box: ReactionsBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const LOG = Array.from({ length: 80 }, (_, i) => `log line ${i + 1}`).join('\n') + '\nFAIL src/login.test.ts > rejects an empty email';

describe('ci-failed', () => {
  it('sends the failing checks and their log tail to the worker, moves the task back to working, and records it', async () => {
    box = await reactionsBox({ 'ci-failed': { logLines: 5 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest(), passed('lint')] }), 'run view': { stdout: LOG } });
    const report = await box.pass();
    expect(report.reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'sent to the worker (attempt 1)' }]);
    const task = await box.orange.store.read('app', ref.id);
    expect(task.meta.status).toBe('working');
    const feedback = parseSections(task.body).get('Feedback') ?? '';
    expect(feedback).toContain('CI failed on https://github.com/acme/app/pull/7');
    expect(feedback).toContain('### CI / test (https://github.com/acme/app/actions/runs/55/job/56)');
    expect(feedback).toContain('log line 77\nlog line 78\nlog line 79\nlog line 80\nFAIL src/login.test.ts > rejects an empty email');
    expect(feedback).not.toContain('log line 76');
    // The worker's terminal: the move's notice, then the reaction's line pointing at ## Feedback.
    expect(await box.heard(ref)).toEqual([expect.stringMatching(BACK_TO_WORKING), expect.stringMatching(CI_LINE)]);
    expect(await box.ghCalls()).toContainEqual(['run', 'view', '--job', '56', '--log-failed', '-R', 'acme/app']);
    const history = await box.orange.store.history('app', ref.id);
    expect(history).toContainEqual(expect.objectContaining({ type: 'reaction.fired', reaction: 'ci-failed', head: 'aaa111', attempt: 1, auto: true }));
    expect(history).toContainEqual(expect.objectContaining({ type: 'status.changed', from: 'reviewing', to: 'working', cause: 'auto', reason: 'CI failed: CI / test' }));
  });

  it('does not fire again for the same check run on the next monitor pass', async () => {
    box = await reactionsBox();
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }), 'run view': { stdout: LOG } });
    await box.pass();
    const second = await box.pass();
    expect(second.reactions).toEqual([]);
    expect(await box.heard(ref)).toEqual([expect.stringMatching(BACK_TO_WORKING), expect.stringMatching(CI_LINE)]);
    expect(await reactionEvents(box, ref.id)).toEqual([['reaction.fired', 'ci-failed', 'aaa111:https://github.com/acme/app/actions/runs/55/job/56']]);
  });

  it('waits while checks still run', async () => {
    box = await reactionsBox();
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest(), { __typename: 'CheckRun', name: 'e2e', status: 'IN_PROGRESS', conclusion: '' }] }) });
    expect((await box.pass()).reactions).toEqual([]);
    expect(await reactionEvents(box, ref.id)).toEqual([]);
    expect(await box.heard(ref)).toEqual([]);
  });

  it('gives up after its retries: warning, then stuck, and stays quiet afterwards', async () => {
    box = await reactionsBox({ 'ci-failed': { retries: 1 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest(55)] }), 'run view': { stdout: LOG } });
    await box.pass();
    expect(await box.heard(ref)).toEqual([expect.stringMatching(BACK_TO_WORKING), expect.stringMatching(CI_LINE)]);
    // The agent pushed a fix; CI failed again on the new commit.
    await box.gh({ 'pr view': prView({ head: 'bbb222', checks: [failedTest(60)] }), 'run view': { stdout: LOG } });
    const report = await box.pass();
    expect(report.reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'gave up: CI failed again (CI / test) after 1 attempt to fix it' }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('stuck');
    expect(await box.heard(ref), 'the worker is told the task is stuck, not sent the failure again').toEqual([expect.stringMatching(STUCK)]);
    await box.orange.notifications.settle();
    expect(box.notifications.map((n) => [n.event, n.priority])).toEqual(
      expect.arrayContaining([
        ['reaction.gave_up', 'warning'],
        ['status.changed', 'urgent'],
      ]),
    );
    await box.gh({ 'pr view': prView({ head: 'ccc333', checks: [failedTest(70)] }), 'run view': { stdout: LOG } });
    expect((await box.pass()).reactions).toEqual([]);
    expect(await box.heard(ref)).toEqual([]);
  });

  it('gives up when the same failure is still there escalateAfter after it was sent', async () => {
    box = await reactionsBox({ 'ci-failed': { escalateAfter: 1 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }), 'run view': { stdout: LOG } });
    await box.pass();
    await pastEscalation(box, ref.id, 'ci-failed', 1);
    const report = await box.pass();
    expect(report.reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: expect.stringMatching(/^gave up: CI still failing \(CI \/ test\)/) }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('stuck');
    expect(await box.heard(ref)).toEqual([expect.stringMatching(BACK_TO_WORKING), expect.stringMatching(CI_LINE), expect.stringMatching(STUCK)]);
  });

  it('respawns a worker that is gone, whose prompt points at the feedback', async () => {
    box = await reactionsBox();
    const ref = await box.task('working');
    const [gone] = await box.starts(ref);
    const pane = await box.workerPane(ref);
    await box.stopWorker(ref);
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }), 'run view': { stdout: LOG } });
    const report = await box.pass();
    // The pass finds the worker dead first (a crash in working: counted, not restarted), then reacts.
    expect(report.exits).toEqual([expect.objectContaining({ task: ref.id, role: 'worker', decision: 'crash' })]);
    expect(report.reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'worker respawned with the feedback (attempt 1)' }]);
    // A new worker runs: a new pane in the worker window, a new agent process that started again.
    const starts = await waitFor(
      `the worker of task ${ref.id} to start again`,
      async () => {
        const all = await box!.starts(ref);
        return all.length === 2 ? all : null;
      },
      WAIT,
    );
    const again = starts[1]!;
    expect(again.role).toBe('worker');
    expect(again.spawn).not.toBe(gone!.spawn);
    expect(again.pid).not.toBe(gone!.pid);
    expect(processAlive(again.pid)).toBe(true);
    expect(processAlive(gone!.pid)).toBe(false);
    const newPane = await box.workerPane(ref);
    expect(newPane).not.toBeNull();
    expect(newPane).not.toBe(pane);
    expect((await box.orange.store.read('app', ref.id)).meta.worker_spawn).toBe(again.spawn);
    expect(await box.prompt(ref, again.spawn)).toContain('Pull request feedback waits in ## Feedback of TASK.md: act on it first.');
    expect(await box.prompt(ref, gone!.spawn)).not.toContain('Pull request feedback waits');
    // Told by its prompt; nothing is typed to it.
    expect(await box.heard(ref)).toEqual([]);
  });

  it('gives up on a task in reviewing: warning, and stuck through reviewing → stuck', async () => {
    box = await reactionsBox({ 'ci-failed': { retries: 0 } });
    const ref = await box.task('reviewing');
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }), 'run view': { stdout: LOG } });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'gave up: CI failed again (CI / test) after 0 attempts to fix it' }]);
    const task = await box.orange.store.read('app', ref.id);
    expect(task.meta).toMatchObject({ status: 'stuck', attention: null });
    expect(await box.orange.store.history('app', ref.id)).toContainEqual(expect.objectContaining({ type: 'status.changed', from: 'reviewing', to: 'stuck', cause: 'auto' }));
    expect(await box.heard(ref)).toEqual([expect.stringMatching(STUCK)]);
    await box.orange.notifications.settle();
    expect(box.notifications.map((n) => [n.event, n.priority, n.to])).toEqual([
      ['reaction.gave_up', 'warning', null],
      ['status.changed', 'urgent', 'stuck'],
    ]);
  });

  it('only notifies a human with auto: false, once per failing run, and never gives up', async () => {
    box = await reactionsBox({ 'ci-failed': { auto: false, retries: 0, escalateAfter: 1 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }) });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'a human was notified' }]);
    await pastEscalation(box, ref.id, 'ci-failed', 1);
    expect((await box.pass()).reactions, 'the same run: told once, and escalateAfter does not apply').toEqual([]);
    await box.gh({ 'pr view': prView({ head: 'bbb222', checks: [failedTest(60)] }) });
    expect((await box.pass()).reactions, 'a new run is told too, though retries is 0').toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'a human was notified' }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('reviewing');
    expect(await box.heard(ref)).toEqual([]);
    expect((await reactionEvents(box, ref.id)).map(([type]) => type)).toEqual(['reaction.fired', 'reaction.fired']);
    await box.orange.notifications.settle();
    expect(box.notifications.map((n) => [n.event, n.priority, n.reason])).toEqual([
      ['reaction.ci-failed', 'action', 'failing: CI / test'],
      ['reaction.ci-failed', 'action', 'failing: CI / test'],
    ]);
  });

  it('clears ## Feedback once the worker hands its fix to review, so a later respawn is not told it waits', async () => {
    box = await reactionsBox();
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }), 'run view': { stdout: LOG } });
    await box.pass();
    // A worker started while the feedback waits is told of it.
    await box.stopWorker(ref);
    await box.orange.engine.respawn(ref);
    const told = await waitFor('the respawned worker to start', async () => (await box!.starts(ref))[1], WAIT);
    expect(await box.prompt(ref, told.spawn)).toContain('Pull request feedback waits in ## Feedback');
    await box.orange.engine.writeSection(ref, 'Handoff', 'DONE: the empty email is rejected');
    const moved = await box.orange.engine.transition(ref, 'agent-review');
    const task = await box.orange.store.read('app', ref.id);
    expect(moved.task, 'the transition returns the task as the clearing left it').toEqual(task);
    expect(parseSections(task.body).get('Feedback')?.trim()).toBe('');
    expect(parseSections(task.body).get('Context')?.trim()).toBe('Login.');
    expect(await box.orange.store.history('app', ref.id)).toContainEqual(expect.objectContaining({ type: 'section.written', section: 'Feedback', bytes: 0 }));
    // The worker dies during the review; the review fails, and the move back to working starts a new one.
    await box.stopWorker(ref);
    await box.orange.engine.writeSection(ref, 'Review', 'Verdict: FAIL\nThe email is not trimmed.');
    await box.orange.engine.transition(ref, 'working');
    const later = await waitFor('the worker started by the move back to working', async () => (await box!.starts(ref)).filter((s) => s.role === 'worker')[2], WAIT);
    expect(await box.prompt(ref, later.spawn)).not.toContain('Pull request feedback waits');
  });

  it("knows a hand-over to review by the workflow's roles, whatever its states are called", async () => {
    // The default workflow with its worker's state called `coding` and its reviewer's `checking`.
    const renamed = JSON.parse(JSON.stringify(defaultWorkflow).replaceAll('"working"', '"coding"').replaceAll('"agent-review"', '"checking"')) as WorkflowInput;
    const home = await tempDir('reactions-roles');
    try {
      const orange = await Orange.create({ defaults: false, workflows: [{ ...renamed, name: 'renamed' }], plugins: [noopActions(), reactions()] }, { paths: new OrangePaths(home) });
      await orange.projects.add({ name: 'app', path: home, default_branch: 'main', workflow: 'renamed' });
      const feedbackIn = async (status: string) => {
        const id = newTaskId();
        await orange.store.create({ meta: newTaskMeta({ id, project: 'app', branch: `feat/${id}`, status, summary: 'Add a login form' }), body: '## Handoff\n\nDONE: fixed\n\n## Review\n\nVerdict: FAIL\nagain\n\n## Feedback\n\nCI failed.\n' });
        return { project: 'app', id };
      };
      const handedOver = await orange.engine.transition(await feedbackIn('coding'), 'checking');
      expect(parseSections(handedOver.task.body).get('Feedback')?.trim()).toBe('');
      // The reviewer's verdict sends the task back to the worker: the feedback it has not acted on stays.
      const sentBack = await orange.engine.transition(await feedbackIn('checking'), 'coding');
      expect(parseSections(sentBack.task.body).get('Feedback')?.trim()).toBe('CI failed.');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
