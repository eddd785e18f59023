import { parseSections } from '@orange/core';
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

  it('only notifies a human with auto: false', async () => {
    box = await reactionsBox({ 'ci-failed': { auto: false } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ checks: [failedTest()] }) });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'ci-failed', outcome: 'a human was notified' }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('reviewing');
    expect(box.typed.get(ref.id)).toBeUndefined();
    await box.orange.notifications.settle();
    expect(box.notifications).toEqual([expect.objectContaining({ event: 'reaction.ci-failed', priority: 'action', reason: 'failing: CI / test' })]);
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

describe('reactions options', () => {
  it('refuses bad options naming the plugin and the field', () => {
    expect(() => reactions({ 'ci-failed': { retries: -1 } })).toThrow(/plugin reactions: option "ci-failed.retries"/);
    expect(() => reactions({ 'ci-broke': {} } as never)).toThrow('plugin reactions: unknown option "ci-broke"');
  });
});
