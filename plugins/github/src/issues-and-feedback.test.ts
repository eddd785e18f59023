import { afterEach, describe, expect, it } from 'vitest';
import { gitFixture, type Fixture } from '../test/git-fixture.js';
import { ISSUE_WITHOUT_GH, ghMissing, ghUnauthenticated, type GithubIssues, type GithubScm } from './index.js';
import { ghPages } from './pull-request-feedback.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

const PR = 'https://github.com/acme/demo/pull/7';
const trackerOf = (f: Fixture) => f.orange.slot('tracker') as GithubIssues;
const scmOf = (f: Fixture) => f.orange.slot('scm') as GithubScm;
const issueJson = JSON.stringify({ number: 123, title: 'Login fails with a + in the email', body: 'Steps:\n1. sign up as a+b@x.io', url: 'https://github.com/acme/demo/issues/123' });

describe('the github tracker', () => {
  it('reads an issue by number with gh issue view, as #123', async () => {
    fx = await gitFixture();
    await fx.ghResponds({ 'issue view': { stdout: issueJson } });
    expect(await trackerOf(fx).issue('123', fx.project)).toEqual({
      ref: '#123',
      url: 'https://github.com/acme/demo/issues/123',
      title: 'Login fails with a + in the email',
      body: 'Steps:\n1. sign up as a+b@x.io',
    });
    expect(await fx.ghCalls()).toEqual([['issue', 'view', '123', '--json', 'number,title,body,url']]);
    expect(trackerOf(fx).closingLine({ ref: '#123' })).toBe('Closes #123');
  });

  it('reads an issue by URL, referring to it as owner/repo#N', async () => {
    fx = await gitFixture();
    await fx.ghResponds({ 'issue view': { stdout: issueJson } });
    const url = 'https://github.com/acme/demo/issues/123';
    expect((await trackerOf(fx).issue(url, fx.project)).ref).toBe('acme/demo#123');
    expect(await fx.ghCalls()).toEqual([['issue', 'view', url, '--json', 'number,title,body,url']]);
  });

  it('refuses a reference that is neither a number nor an issue URL, without calling gh', async () => {
    fx = await gitFixture();
    for (const bad of ['abc', '-1', '--web', '12 13', 'https://github.com/acme/demo/pull/7']) {
      await expect(trackerOf(fx).issue(bad, fx.project)).rejects.toMatchObject({ code: 'E_INVALID_INPUT', message: expect.stringContaining('--issue takes a GitHub issue number') });
    }
    expect(await fx.ghCalls()).toEqual([]);
  });

  it('says which issue could not be read, with gh\'s reason', async () => {
    fx = await gitFixture();
    await fx.ghResponds({ 'issue view': { stderr: 'GraphQL: Could not resolve to an issue or pull request with the number of 999.', code: 1 } });
    await expect(trackerOf(fx).issue('#999', fx.project)).rejects.toMatchObject({ code: 'E_SCM', message: 'reading issue #999 failed: GraphQL: Could not resolve to an issue or pull request with the number of 999.' });
  });

  it('without gh, says it is missing and how to create the task without --issue (not how to merge)', async () => {
    fx = await gitFixture({ ghBin: 'no-such-gh-xyz' });
    const refusal = trackerOf(fx).issue('123', fx.project);
    await expect(refusal).rejects.toMatchObject({ code: 'E_SCM', message: ghMissing(ISSUE_WITHOUT_GH) });
    await expect(refusal).rejects.toThrow(/^gh \(GitHub CLI\) is not installed; install it or create the task without --issue: orange task create <branch> "<summary>"/);
  });

  it('with gh logged out, says to log in or create the task without --issue', async () => {
    fx = await gitFixture();
    await fx.ghResponds({ 'issue view': { stderr: 'To get started with GitHub CLI, please run:  gh auth login', code: 4 } });
    await expect(trackerOf(fx).issue('123', fx.project)).rejects.toMatchObject({ code: 'E_SCM', message: ghUnauthenticated(ISSUE_WITHOUT_GH) });
    await expect(trackerOf(fx).issue('123', fx.project)).rejects.not.toThrow(/merge/);
  });

  it('puts Closes #123 in the body of the pull request of a task created from issue 123', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/issue', { summary: 'Fix login', issue: '#123', body: '## Context\n\nSteps.\n' });
    await fx.ghResponds({ 'auth status': {}, 'pr create': { stdout: PR } });
    await scmOf(fx).createPullRequest(task, fx.project);
    const create = (await fx.ghCalls()).find((c) => c[1] === 'create')!;
    expect(create[create.indexOf('--body') + 1]).toBe('Fix login\n\n## Context\n\nSteps.\n\nCloses #123\n');
  });
});

const view = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    state: 'OPEN',
    url: PR,
    headRefOid: 'abc123',
    reviewDecision: '',
    statusCheckRollup: [
      { __typename: 'CheckRun', name: 'test', workflowName: 'CI', status: 'COMPLETED', conclusion: 'FAILURE', detailsUrl: 'https://github.com/acme/demo/actions/runs/55/job/66', startedAt: 't' },
      { __typename: 'CheckRun', name: 'lint', workflowName: 'CI', status: 'IN_PROGRESS', conclusion: '', detailsUrl: 'https://github.com/acme/demo/actions/runs/55/job/67' },
      { __typename: 'StatusContext', context: 'deploy/preview', state: 'SUCCESS', targetUrl: 'https://preview.example/7' },
    ],
    latestReviews: [],
    ...overrides,
  });

describe('pull request feedback', () => {
  it('reads checks from one gh pr view: failed, pending and succeeded, each with its run', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/fb', { pr_url: PR });
    await fx.ghResponds({ 'pr view': { stdout: view() } });
    const feedback = await scmOf(fx).pullRequestFeedback(task, fx.project);
    expect(feedback).toEqual({
      state: 'open',
      url: PR,
      headSha: 'abc123',
      reviewDecision: null,
      reviews: [],
      checks: [
        { name: 'CI / test', state: 'failure', url: 'https://github.com/acme/demo/actions/runs/55/job/66', runId: 'https://github.com/acme/demo/actions/runs/55/job/66' },
        { name: 'CI / lint', state: 'pending', url: 'https://github.com/acme/demo/actions/runs/55/job/67', runId: 'https://github.com/acme/demo/actions/runs/55/job/67' },
        { name: 'deploy/preview', state: 'success', url: 'https://preview.example/7', runId: 'https://preview.example/7' },
      ],
    });
    expect(await fx.ghCalls()).toEqual([['pr', 'view', PR, '--json', 'state,url,headRefOid,reviewDecision,statusCheckRollup,latestReviews']]);
  });

  it("reads a merged or closed pull request's state in the same one call, and asks the API nothing more", async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/merged', { pr_url: PR });
    await fx.ghResponds({ 'pr view': { stdout: view({ state: 'MERGED', reviewDecision: 'CHANGES_REQUESTED' }) } });
    expect(await scmOf(fx).pullRequestFeedback(task, fx.project)).toMatchObject({ state: 'merged', url: PR, headSha: 'abc123' });
    await fx.ghResponds({ 'pr view': { stdout: view({ state: 'CLOSED' }) } });
    expect(await scmOf(fx).pullRequestFeedback(task, fx.project)).toMatchObject({ state: 'closed' });
    expect((await fx.ghCalls()).map((c) => c.slice(0, 2))).toEqual([
      ['pr', 'view'],
      ['pr', 'view'],
    ]);
    await fx.ghResponds({ 'pr view': { stdout: view({ state: 'DRAFTED' }) } });
    await expect(scmOf(fx).pullRequestFeedback(task, fx.project)).rejects.toMatchObject({ code: 'E_SCM', message: `gh pr view ${PR} reported an unknown state "DRAFTED"` });
  });

  it('reads the reviews and their inline comments from the API when changes are requested', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/cr', { pr_url: PR });
    await fx.ghResponds({
      'pr view': { stdout: view({ reviewDecision: 'CHANGES_REQUESTED', statusCheckRollup: [] }) },
      'api repos/acme/demo/pulls/7/reviews': {
        stdout: JSON.stringify([
          { id: 901, user: { login: 'ana' }, state: 'CHANGES_REQUESTED', body: 'Please handle the empty email.', submitted_at: '2026-01-01T10:00:00Z' },
          { id: 902, user: { login: 'bo' }, state: 'COMMENTED', body: 'nit', submitted_at: '2026-01-01T11:00:00Z' },
        ]),
      },
      'api repos/acme/demo/pulls/7/comments': { stdout: JSON.stringify([{ pull_request_review_id: 901, path: 'src/login.ts', line: 12, body: 'This throws on "".' }]) },
    });
    const feedback = await scmOf(fx).pullRequestFeedback(task, fx.project);
    expect(feedback?.reviewDecision).toBe('changes_requested');
    expect(feedback?.reviews).toEqual([
      { id: '901', author: 'ana', state: 'changes_requested', body: 'Please handle the empty email.', comments: [{ path: 'src/login.ts', line: 12, body: 'This throws on "".' }], submittedAt: '2026-01-01T10:00:00Z' },
      { id: '902', author: 'bo', state: 'commented', body: 'nit', comments: [], submittedAt: '2026-01-01T11:00:00Z' },
    ]);
  });

  it('reads every page of the reviews and comments with gh api --paginate', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/pages', { pr_url: PR });
    const review = (id: number, state: string, at: string) => ({ id, user: { login: `r${id}` }, state, body: `review ${id}`, submitted_at: at });
    const firstPage = Array.from({ length: 100 }, (_, i) => review(i + 1, 'COMMENTED', '2026-01-01T09:00:00Z'));
    await fx.ghResponds({
      'pr view': { stdout: view({ reviewDecision: 'CHANGES_REQUESTED', statusCheckRollup: [] }) },
      'api repos/acme/demo/pulls/7/reviews': { pages: [JSON.stringify(firstPage), JSON.stringify([review(901, 'CHANGES_REQUESTED', '2026-01-02T10:00:00Z')])] },
      'api repos/acme/demo/pulls/7/comments': { pages: ['[]', JSON.stringify([{ pull_request_review_id: 901, path: 'src/a.ts', line: 3, body: 'on page two' }])] },
    });
    const feedback = await scmOf(fx).pullRequestFeedback(task, fx.project);
    expect(feedback?.reviews).toHaveLength(101);
    expect(feedback?.reviews.at(-1)).toMatchObject({ id: '901', state: 'changes_requested', comments: [{ path: 'src/a.ts', line: 3, body: 'on page two' }] });
    expect((await fx.ghCalls()).filter((c) => c[0] === 'api')).toEqual([
      ['api', '--paginate', 'repos/acme/demo/pulls/7/reviews?per_page=100'],
      ['api', '--paginate', 'repos/acme/demo/pulls/7/comments?per_page=100'],
    ]);
  });

  it('reads the tail of a failed Actions job log with gh run view --log-failed', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/log', { pr_url: PR });
    const log = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');
    await fx.ghResponds({ 'run view': { stdout: log } });
    const check = { name: 'CI / test', state: 'failure' as const, url: 'https://github.com/acme/demo/actions/runs/55/job/66', runId: 'x' };
    expect(await scmOf(fx).checkLog(task, fx.project, check, 3)).toBe('line 98\nline 99\nline 100');
    expect(await fx.ghCalls()).toEqual([['run', 'view', '--job', '66', '--log-failed', '-R', 'acme/demo']]);
    expect(await scmOf(fx).checkLog(task, fx.project, { ...check, url: 'https://ci.example/1' }, 3)).toBeNull();
  });

  it('merges the pull request with gh pr merge and the configured method', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/merge', { pr_url: PR });
    await fx.ghResponds({ 'pr merge': {} });
    expect(await scmOf(fx).mergePullRequest(task, fx.project)).toEqual({ message: `merged pull request ${PR} (merge)` });
    expect(await fx.ghCalls()).toEqual([['pr', 'merge', PR, '--merge']]);
  });
});

describe('a paginated gh api listing', () => {
  it('reads one merged array (gh 2.26+) and pages printed back to back (older gh), brackets inside strings included', () => {
    expect(ghPages('[{"a":1},{"a":2}]\n', 'x')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(ghPages('[{"body":"] [ \\" }{"}]\n[{"a":2}][]\n', 'x')).toEqual([{ body: '] [ " }{' }, { a: 2 }]);
  });

  it('refuses output that is not JSON arrays, saying what printed it', () => {
    expect(() => ghPages('', 'gh api reviews')).toThrow('gh api reviews did not print JSON');
    expect(() => ghPages('[{"a":1}', 'gh api reviews')).toThrow('gh api reviews did not print JSON');
    expect(() => ghPages('{"message":"Not Found"}', 'gh api reviews')).toThrow('gh api reviews did not print a JSON array');
  });
});
