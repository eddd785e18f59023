import { processAlive } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { passed, pastEscalation, prView, reactionEvents, reactionsBox, type ReactionsBox } from '../test/reactions-box.js';

let box: ReactionsBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
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
    expect(await box.heard(ref)).toEqual([]);
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
    const { workspace, branch } = (await box.orange.store.read('app', ref.id)).meta;
    const tip = await box.git(workspace!, 'rev-parse', 'HEAD');
    const [worker] = await box.starts(ref);
    await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test')] }), 'pr merge': {} });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'merged pull request https://github.com/acme/app/pull/7 (merge)' }]);
    expect(await box.ghCalls()).toContainEqual(['pr', 'merge', 'https://github.com/acme/app/pull/7', '--merge']);
    const task = await box.orange.store.read('app', ref.id);
    expect(task.meta).toMatchObject({ status: 'done', attention: null });
    expect(await box.orange.store.history('app', ref.id)).toContainEqual(expect.objectContaining({ type: 'task.merged', via: 'approved-and-green' }));
    // Finished: the task's tmux session and its worker are gone, and its branch is deleted from origin.
    expect(await box.windows()).toEqual([]);
    expect(processAlive(worker!.pid)).toBe(false);
    expect(await box.git(box.origin, 'rev-parse', 'main')).toBe(tip);
    expect(await box.git(box.origin, 'branch', '--list', branch)).toBe('');
  });
});

describe('approved-and-green, only where done follows', () => {
  for (const status of ['working', 'agent-review'] as const) {
    it(`neither merges nor announces a task in ${status}; it does once the task is in reviewing`, async () => {
      box = await reactionsBox({ 'approved-and-green': { auto: true } });
      const ref = await box.task(status);
      await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test')] }), 'pr merge': {} });
      expect((await box.pass()).reactions).toEqual([]);
      expect((await box.ghCalls()).some((c) => c[0] === 'pr' && c[1] === 'merge')).toBe(false);
      expect(await reactionEvents(box, ref.id)).toEqual([]);
      expect((await box.orange.store.read('app', ref.id)).meta.status).toBe(status);
      expect(await box.windows(), 'its agents still run').not.toEqual([]);
      if (status === 'working') await box.orange.engine.writeSection(ref, 'Handoff', 'DONE: done');
      if (status === 'working') await box.orange.engine.transition(ref, 'agent-review');
      await box.orange.engine.writeSection(ref, 'Review', 'Verdict: PASS');
      await box.orange.engine.transition(ref, 'reviewing');
      expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'merged pull request https://github.com/acme/app/pull/7 (merge)' }]);
      expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('done');
      expect(await box.windows()).toEqual([]);
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
    // The work is done and approved: the task stays for a person to merge, its worker with it.
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('reviewing');
    expect(await box.heard(ref)).toEqual([]);
    await box.orange.notifications.settle();
    expect(box.notifications.map((n) => [n.event, n.priority])).toEqual([['reaction.gave_up', 'warning']]);
  });

  it('warns once when the pull request is still not merged escalateAfter after it was announced', async () => {
    box = await reactionsBox({ 'approved-and-green': { escalateAfter: 1 } });
    const ref = await box.task();
    await box.gh({ 'pr view': prView({ decision: 'APPROVED', checks: [passed('test')] }) });
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'a human was notified' }]);
    await pastEscalation(box, ref.id, 'approved-and-green', 1);
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'approved-and-green', outcome: 'gave up: approved with green checks, still not merged 0 s later' }]);
    expect((await box.pass()).reactions).toEqual([]);
    await box.orange.notifications.settle();
    expect(box.notifications.map((n) => [n.event, n.priority])).toEqual([
      ['pull_request.approved', 'action'],
      ['reaction.gave_up', 'warning'],
    ]);
  });
});
