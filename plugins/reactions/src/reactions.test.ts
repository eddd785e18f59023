import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultWorkflow, newTaskId, newTaskMeta, noopActions, Orange, OrangePaths, parseSections, type WorkflowInput } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { failedTest, passed, prView, reactionsBox, type ReactionsBox } from '../test/reactions-box.js';
import { reactions } from './index.js';

let box: ReactionsBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const LOG = Array.from({ length: 80 }, (_, i) => `log line ${i + 1}`).join('\n') + '\nFAIL src/login.test.ts > rejects an empty email';
const reactionEvents = async (b: ReactionsBox, id: string) =>
  (await b.orange.store.history('app', id)).filter((e) => e.type.startsWith('reaction.')).map((e) => [e.type, e.reaction, e.key]);

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
    expect(box.typed.get(ref.id)).toEqual([expect.stringMatching(/^\[orange\] CI failed on the pull request \(CI \/ test\)\. .*## Feedback/)]);
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
    expect(box.typed.get(ref.id)).toHaveLength(1);
    expect(await reactionEvents(box, ref.id)).toEqual([['reaction.fired', 'ci-failed', 'aaa111:https://github.com/acme/app/actions/runs/55/job/56']]);
  });

  it('waits while checks still run', async () => {
    box = await reactionsBox();
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest(), { __typename: 'CheckRun', name: 'e2e', status: 'IN_PROGRESS', conclusion: '' }] }) });
    expect((await box.pass()).reactions).toEqual([]);
    expect(await reactionEvents(box, ref.id)).toEqual([]);
  });

  it('gives up after its retries: warning, then stuck, and stays quiet afterwards', async () => {
    box = await reactionsBox({ 'ci-failed': { retries: 1 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest(55)] }), 'run view': { stdout: LOG } });
    await box.pass();
    // The agent pushed a fix; CI failed again on the new commit.
    await box.gh({ 'pr view': prView({ head: 'bbb222', checks: [failedTest(60)] }), 'run view': { stdout: LOG } });
    const report = await box.pass();
    expect(report.reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'gave up: CI failed again (CI / test) after 1 attempt to fix it' }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('stuck');
    await box.orange.notifications.settle();
    expect(box.notifications.map((n) => [n.event, n.priority])).toEqual(
      expect.arrayContaining([
        ['reaction.gave_up', 'warning'],
        ['status.changed', 'urgent'],
      ]),
    );
    await box.gh({ 'pr view': prView({ head: 'ccc333', checks: [failedTest(70)] }), 'run view': { stdout: LOG } });
    expect((await box.pass()).reactions).toEqual([]);
    expect(box.typed.get(ref.id)).toHaveLength(1);
  });

  it('gives up when the same failure is still there escalateAfter after it was sent', async () => {
    box = await reactionsBox({ 'ci-failed': { escalateAfter: 1 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }), 'run view': { stdout: LOG } });
    await box.pass();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const report = await box.pass();
    expect(report.reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: expect.stringMatching(/^gave up: CI still failing \(CI \/ test\)/) }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('stuck');
  });

  it('respawns a worker that is gone, whose prompt points at the feedback', async () => {
    box = await reactionsBox();
    const ref = await box.task('working');
    box.alive.delete(ref.id);
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }), 'run view': { stdout: LOG } });
    const report = await box.pass();
    expect(report.reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'worker respawned with the feedback (attempt 1)' }]);
    expect(box.alive.has(ref.id)).toBe(true);
    const task = await box.orange.store.read('app', ref.id);
    const workflow = await box.orange.workflowForProject('app');
    expect(await box.orange.engine.prompt(workflow, task, 'worker', true)).toContain('Pull request feedback waits in ## Feedback of TASK.md');
  });

  it('gives up on a task in reviewing: warning, and stuck through reviewing → stuck', async () => {
    box = await reactionsBox({ 'ci-failed': { retries: 0 } });
    const ref = await box.task('reviewing');
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }), 'run view': { stdout: LOG } });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'gave up: CI failed again (CI / test) after 0 attempts to fix it' }]);
    const task = await box.orange.store.read('app', ref.id);
    expect(task.meta).toMatchObject({ status: 'stuck', attention: null });
    expect(await box.orange.store.history('app', ref.id)).toContainEqual(expect.objectContaining({ type: 'status.changed', from: 'reviewing', to: 'stuck', cause: 'auto' }));
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
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await box.pass()).reactions, 'the same run: told once, and escalateAfter does not apply').toEqual([]);
    await box.gh({ 'pr view': prView({ head: 'bbb222', checks: [failedTest(60)] }) });
    expect((await box.pass()).reactions, 'a new run is told too, though retries is 0').toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'a human was notified' }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('reviewing');
    expect(box.typed.get(ref.id)).toBeUndefined();
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
    const workflow = await box.orange.workflowForProject('app');
    const prompt = async () => box!.orange.engine.prompt(workflow, await box!.orange.store.read('app', ref.id), 'worker', true);
    expect(await prompt()).toContain('Pull request feedback waits in ## Feedback');
    await box.orange.engine.writeSection(ref, 'Handoff', 'DONE: the empty email is rejected');
    const moved = await box.orange.engine.transition(ref, 'agent-review');
    const task = await box.orange.store.read('app', ref.id);
    expect(moved.task, 'the transition returns the task as the clearing left it').toEqual(task);
    expect(parseSections(task.body).get('Feedback')?.trim()).toBe('');
    expect(parseSections(task.body).get('Context')?.trim()).toBe('Login.');
    expect(await prompt()).not.toContain('Pull request feedback waits');
    expect(await box.orange.store.history('app', ref.id)).toContainEqual(expect.objectContaining({ type: 'section.written', section: 'Feedback', bytes: 0 }));
  });

  it("knows a hand-over to review by the workflow's roles, whatever its states are called", async () => {
    // The default workflow with its worker's state called `coding` and its reviewer's `checking`.
    const renamed = JSON.parse(JSON.stringify(defaultWorkflow).replaceAll('"working"', '"coding"').replaceAll('"agent-review"', '"checking"')) as WorkflowInput;
    const home = await mkdtemp(join(tmpdir(), 'orange-reactions-roles-'));
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

const REVIEWS = JSON.stringify([
  { id: 901, user: { login: 'ana' }, state: 'CHANGES_REQUESTED', body: 'Please handle the empty email.\n## Not a section', submitted_at: '2026-01-01T10:00:00Z' },
]);
const COMMENTS = JSON.stringify([{ pull_request_review_id: 901, path: 'src/login.ts', line: 12, body: 'This throws on "".' }]);

describe('changes-requested', () => {
  it('sends the review and its inline comments to the worker and moves the task back to working, once', async () => {
    box = await reactionsBox();
    const ref = await box.task();
    await box.gh({
      'pr view': prView({ decision: 'CHANGES_REQUESTED', checks: [passed('test')] }),
      'api repos/acme/app/pulls/7/reviews': { stdout: REVIEWS },
      'api repos/acme/app/pulls/7/comments': { stdout: COMMENTS },
    });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'changes-requested', outcome: 'sent to the worker (attempt 1)' }]);
    const task = await box.orange.store.read('app', ref.id);
    expect(task.meta.status).toBe('working');
    const sections = parseSections(task.body);
    expect(sections.get('Feedback')).toContain('ana requested changes on https://github.com/acme/app/pull/7');
    expect(sections.get('Feedback')).toContain('- src/login.ts:12: This throws on "".');
    // Text from a reviewer cannot open a section of its own in TASK.md.
    expect(sections.has('Not a section')).toBe(false);
    expect(box.typed.get(ref.id)).toEqual([expect.stringMatching(/^\[orange\] ana requested changes on the pull request\./)]);
    expect((await box.pass()).reactions).toEqual([]);
    expect(await reactionEvents(box, ref.id)).toEqual([['reaction.fired', 'changes-requested', 'review:901']]);
  });

  it('waits while the reviewer agent runs (agent-review), then sends on the first pass after the review', async () => {
    box = await reactionsBox();
    const ref = await box.task('agent-review');
    await box.gh({
      'pr view': prView({ decision: 'CHANGES_REQUESTED', checks: [passed('test')] }),
      'api repos/acme/app/pulls/7/reviews': { stdout: REVIEWS },
      'api repos/acme/app/pulls/7/comments': { stdout: COMMENTS },
    });
    expect((await box.pass()).reactions).toEqual([]);
    expect(box.typed.get(ref.id)).toBeUndefined();
    expect(await reactionEvents(box, ref.id)).toEqual([]);
    const waiting = await box.orange.store.read('app', ref.id);
    expect(waiting.meta.status).toBe('agent-review');
    expect(parseSections(waiting.body).has('Feedback')).toBe(false);
    // The review passes: the task is in reviewing, where the worker can take the feedback.
    await box.orange.engine.writeSection(ref, 'Review', 'Verdict: PASS');
    await box.orange.engine.transition(ref, 'reviewing');
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'changes-requested', outcome: 'sent to the worker (attempt 1)' }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('working');
    expect(box.typed.get(ref.id)).toHaveLength(1);
  });

  it('reads every page of the reviews and of their comments (gh api --paginate)', async () => {
    box = await reactionsBox();
    const ref = await box.task();
    const older = JSON.stringify([{ id: 900, user: { login: 'bo' }, state: 'COMMENTED', body: 'first look', submitted_at: '2026-01-01T09:00:00Z' }]);
    await box.gh({
      'pr view': prView({ decision: 'CHANGES_REQUESTED', checks: [passed('test')] }),
      'api repos/acme/app/pulls/7/reviews': { pages: [older, REVIEWS] },
      'api repos/acme/app/pulls/7/comments': { pages: ['[]', COMMENTS] },
    });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'changes-requested', outcome: 'sent to the worker (attempt 1)' }]);
    expect(parseSections((await box.orange.store.read('app', ref.id)).body).get('Feedback')).toContain('- src/login.ts:12: This throws on "".');
    expect((await box.ghCalls()).filter((c) => c[0] === 'api')).toEqual([
      ['api', '--paginate', 'repos/acme/app/pulls/7/reviews?per_page=100'],
      ['api', '--paginate', 'repos/acme/app/pulls/7/comments?per_page=100'],
    ]);
  });

  it('gives up when no commit follows the review within escalateAfter', async () => {
    box = await reactionsBox({ 'changes-requested': { escalateAfter: 1 } });
    const ref = await box.task();
    await box.gh({
      'pr view': prView({ decision: 'CHANGES_REQUESTED' }),
      'api repos/acme/app/pulls/7/reviews': { stdout: REVIEWS },
      'api repos/acme/app/pulls/7/comments': { stdout: COMMENTS },
    });
    await box.pass();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'changes-requested', outcome: expect.stringMatching(/^gave up: no new commit/) }]);
  });
});

describe('approved-and-green', () => {
  it('notifies a human once per head commit that the pull request can be merged', async () => {
    box = await reactionsBox();
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test'), passed('lint')] }) });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'a human was notified' }]);
    expect((await box.pass()).reactions).toEqual([]);
    await box.orange.notifications.settle();
    expect(box.notifications).toEqual([expect.objectContaining({ event: 'pull_request.approved', priority: 'action', title: 'Approved with green checks: Add a login form' })]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('reviewing');
  });

  it('does nothing while a check fails or runs', async () => {
    box = await reactionsBox();
    await box.task();
    await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test'), { __typename: 'CheckRun', name: 'e2e', status: 'QUEUED', conclusion: '' }] }) });
    expect((await box.pass()).reactions).toEqual([]);
  });

  it('merges with gh pr merge and finishes the task with auto: true', async () => {
    box = await reactionsBox({ 'approved-and-green': { auto: true } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test')] }), 'pr merge': {} });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'merged pull request https://github.com/acme/app/pull/7 (merge)' }]);
    expect(await box.ghCalls()).toContainEqual(['pr', 'merge', 'https://github.com/acme/app/pull/7', '--merge']);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('done');
    expect(await box.orange.store.history('app', ref.id)).toContainEqual(expect.objectContaining({ type: 'task.merged', via: 'approved-and-green' }));
  });
});

describe('approved-and-green, only where done follows', () => {
  for (const status of ['working', 'agent-review']) {
    it(`neither merges nor announces a task in ${status}; it does once the task is in reviewing`, async () => {
      box = await reactionsBox({ 'approved-and-green': { auto: true } });
      const ref = await box.task(status);
      await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test')] }), 'pr merge': {} });
      expect((await box.pass()).reactions).toEqual([]);
      expect((await box.ghCalls()).some((c) => c[0] === 'pr' && c[1] === 'merge')).toBe(false);
      expect(await reactionEvents(box, ref.id)).toEqual([]);
      expect((await box.orange.store.read('app', ref.id)).meta.status).toBe(status);
      if (status === 'working') await box.orange.engine.writeSection(ref, 'Handoff', 'DONE: done');
      if (status === 'working') await box.orange.engine.transition(ref, 'agent-review');
      await box.orange.engine.writeSection(ref, 'Review', 'Verdict: PASS');
      await box.orange.engine.transition(ref, 'reviewing');
      expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'merged pull request https://github.com/acme/app/pull/7 (merge)' }]);
      expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('done');
    });
  }

  it('does not tell a human a task in working can be merged (auto: false)', async () => {
    box = await reactionsBox();
    await box.task('working');
    await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test')] }) });
    expect((await box.pass()).reactions).toEqual([]);
    await box.orange.notifications.settle();
    expect(box.notifications).toEqual([]);
  });

  it('tries a failed merge again on later passes, then gives up with a warning, once', async () => {
    box = await reactionsBox({ 'approved-and-green': { auto: true, retries: 1 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test')] }), 'pr merge': { stderr: 'Pull request is not mergeable: the base branch policy prohibits the merge.', code: 1 } });
    expect((await box.pass()).reactions).toEqual([
      { task: ref.id, reaction: 'approved-and-green', outcome: expect.stringMatching(/^merging failed: .*not mergeable.* \(attempt 1; tried again on the next pass\)$/) },
    ]);
    expect((await box.pass()).reactions).toEqual([
      { task: ref.id, reaction: 'approved-and-green', outcome: expect.stringMatching(/^gave up: merging failed: .*not mergeable.* \(attempt 2, no retries left\)$/) },
    ]);
    expect((await box.pass()).reactions).toEqual([]);
    expect((await box.ghCalls()).filter((c) => c[0] === 'pr' && c[1] === 'merge')).toHaveLength(2);
    expect(await reactionEvents(box, ref.id)).toEqual([
      ['reaction.fired', 'approved-and-green', 'head:aaa111'],
      ['reaction.failed', 'approved-and-green', 'head:aaa111'],
      ['reaction.fired', 'approved-and-green', 'head:aaa111'],
      ['reaction.failed', 'approved-and-green', 'head:aaa111'],
      ['reaction.gave_up', 'approved-and-green', 'head:aaa111'],
    ]);
    // The work is done and approved: the task stays for a person to merge.
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('reviewing');
    await box.orange.notifications.settle();
    expect(box.notifications.map((n) => [n.event, n.priority])).toEqual([['reaction.gave_up', 'warning']]);
  });

  it('warns once when the pull request is still not merged escalateAfter after it was announced', async () => {
    box = await reactionsBox({ 'approved-and-green': { escalateAfter: 1 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test')] }) });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'a human was notified' }]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'gave up: approved with green checks, still not merged 0 s later' }]);
    expect((await box.pass()).reactions).toEqual([]);
    await box.orange.notifications.settle();
    expect(box.notifications.map((n) => [n.event, n.priority])).toEqual([
      ['pull_request.approved', 'action'],
      ['reaction.gave_up', 'warning'],
    ]);
  });
});

describe('reactions options', () => {
  it('refuses bad options naming the plugin and the field', () => {
    expect(() => reactions({ 'ci-failed': { retries: -1 } })).toThrow(/plugin reactions: option "ci-failed.retries"/);
    expect(() => reactions({ 'ci-broke': {} } as never)).toThrow('plugin reactions: unknown option "ci-broke"');
  });
});
