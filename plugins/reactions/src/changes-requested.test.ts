import { parseSections } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { BACK_TO_WORKING, passed, pastEscalation, prView, reactionEvents, reactionsBox, REVIEW_LINE, REVIEW_PASSED, STUCK, type ReactionsBox } from '../test/reactions-box.js';

let box: ReactionsBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
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
    expect((await box.pass()).reactions).toEqual([]);
    expect(await box.heard(ref)).toEqual([expect.stringMatching(BACK_TO_WORKING), expect.stringMatching(REVIEW_LINE)]);
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
    expect(await box.heard(ref)).toEqual([]);
    expect(await reactionEvents(box, ref.id)).toEqual([]);
    const waiting = await box.orange.store.read('app', ref.id);
    expect(waiting.meta.status).toBe('agent-review');
    expect(parseSections(waiting.body).has('Feedback')).toBe(false);
    // The review passes: the task is in reviewing, where the worker can take the feedback.
    await box.orange.engine.writeSection(ref, 'Review', 'Verdict: PASS');
    await box.orange.engine.transition(ref, 'reviewing');
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'changes-requested', outcome: 'sent to the worker (attempt 1)' }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('working');
    expect(await box.heard(ref)).toEqual([expect.stringMatching(REVIEW_PASSED), expect.stringMatching(BACK_TO_WORKING), expect.stringMatching(REVIEW_LINE)]);
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
    expect((await box.heard(ref)).at(-1)).toMatch(REVIEW_LINE);
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
    await pastEscalation(box, ref.id, 'changes-requested', 1);
    expect((await box.pass()).reactions).toEqual([{ task: ref.id, reaction: 'changes-requested', outcome: expect.stringMatching(/^gave up: no new commit/) }]);
    expect((await box.orange.store.read('app', ref.id)).meta.status).toBe('stuck');
    expect(await box.heard(ref)).toEqual([expect.stringMatching(BACK_TO_WORKING), expect.stringMatching(REVIEW_LINE), expect.stringMatching(STUCK)]);
  });
});
