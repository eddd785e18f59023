/**
 * Issue 13 end to end: notifications to a webhook and Slack receiver on 127.0.0.1, and pull
 * request reactions through a stand-in gh first on PATH (answering with checks, reviews and logs
 * and recording its argv), with a scripted worker in real tmux that receives the CI
 * log and the review comments and acts on them.
 */
import { createHmac } from 'node:crypto';
import type { MonitorReport } from '@orange/core';
import { httpReceiver, standInGh, type HttpReceiver } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginUrl, Sandbox } from './sandbox.js';

const PR = 'https://github.com/example/app/pull/7';
const SECRET = 'e2e-secret';

let box: Sandbox | undefined;
let hook: HttpReceiver | undefined;
let slackServer: HttpReceiver | undefined;
afterEach(async () => {
  await box?.cleanup();
  await hook?.close();
  await slackServer?.close();
  box = hook = slackServer = undefined;
});

const view = (fields: { head: string; checks: unknown[]; decision?: string }) => ({
  state: 'OPEN',
  url: PR,
  headRefOid: fields.head,
  reviewDecision: fields.decision ?? '',
  statusCheckRollup: fields.checks,
  latestReviews: [],
});
const check = (name: string, conclusion: 'SUCCESS' | 'FAILURE', run: number) => ({
  __typename: 'CheckRun',
  name,
  workflowName: 'CI',
  status: 'COMPLETED',
  conclusion,
  detailsUrl: `https://github.com/example/app/actions/runs/${run}/job/${run + 1}`,
});

describe('notifications and pull request reactions, end to end', () => {
  it('posts notifications to a webhook and Slack, and hands CI failures and review comments to the worker, which acts on them', async () => {
    hook = await httpReceiver();
    slackServer = await httpReceiver();
    box = await Sandbox.create({
      config: {
        imports: [
          `import { webhook } from ${JSON.stringify(pluginUrl('plugins/notifier-webhook'))};`,
          `import { slack } from ${JSON.stringify(pluginUrl('plugins/notifier-slack'))};`,
        ],
        plugins: [`webhook({ url: ${JSON.stringify(hook.url)}, secret: ${JSON.stringify(SECRET)} })`, `slack({ url: ${JSON.stringify(slackServer.url)} })`],
        fields: ["notifications: { routes: { urgent: ['webhook', 'slack'], action: ['webhook', 'slack'], warning: ['slack'], info: ['webhook'] } }"],
      },
    });
    const gh = await standInGh(box.dir);
    const pullApi = 'api repos/example/app/pulls/7';
    // One pass that looked at every task: a pass never waits for a task another process is moving
    // (here the task's own move that just ended), it lists it busy and the next pass takes it.
    const monitor = async () => {
      for (let pass = 1; ; pass++) {
        const result = await box!.orange(['monitor', '--once', '--json'], { env: gh.env });
        expect(result.code, result.stderr).toBe(0);
        const report = JSON.parse(result.stdout) as MonitorReport & { busy: string[] };
        if (report.busy.length === 0 || pass === 20) return report;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    // A task reaches reviewing (ready for a human): an `action` notification to both.
    const id = await box.createTask(['fix/login', 'Fix login with a + in the email'], 'agent.reviews: PASS\n');
    const ready = await box.waitForStatus(id, 'reviewing', 60_000);
    const readyPost = (await hook.received(1)).find((r) => JSON.parse(r.body).to === 'reviewing');
    expect(readyPost, JSON.stringify(hook.requests.map((r) => r.body))).toBeDefined();
    const readyBody = JSON.parse(readyPost!.body);
    expect(readyBody).toMatchObject({ event: 'status.changed', priority: 'action', title: 'Ready for review: Fix login with a + in the email', from: 'agent-review', to: 'reviewing' });
    expect(readyBody.task).toMatchObject({ id, project: 'demo', branch: 'fix/login', attach: `tmux -L ${box.socket} attach-session -t =demo/${id}` });
    expect(readyPost!.headers['x-orange-signature-256']).toBe(`sha256=${createHmac('sha256', SECRET).update(readyPost!.body).digest('hex')}`);
    const slackPost = (await slackServer.received(1)).find((r) => String(JSON.parse(r.body).text).includes('Ready for review'));
    expect(JSON.parse(slackPost?.body ?? '{}').blocks?.[1]?.fields?.[1]?.text).toBe('*Status*\nagent-review → reviewing');
    // The closing note of issue 13 shows one body of each exactly as sent.
    if (process.env.ORANGE_SHOW_BODIES === '1') process.stdout.write(`webhook body:\n${readyPost!.body}\nslack body:\n${slackPost?.body}\n`);

    // The pull request is opened through the real path: branch pushed to the bare origin.
    await gh.add({ 'auth status': {}, 'pr create': { stdout: PR } });
    const created = await box.orange(['task', 'create-pr', id], { env: gh.env });
    expect(created.code, created.stderr).toBe(0);
    expect(await box.git(box.origin, 'branch', '--list', 'fix/login')).toContain('fix/login');

    // CI fails: the failing check and its log tail go to the worker, which fixes and asks for review again.
    await gh.add({
      'pr view': { stdout: view({ head: 'first-commit', checks: [check('test', 'FAILURE', 55), check('lint', 'SUCCESS', 57)] }) },
      'run view': { stdout: 'Run npm test\n  FAIL src/login.test.ts > accepts a + in the email\n  Expected: true, received: false' },
    });
    const first = await monitor();
    expect(first.reactions).toEqual([{ task: id, reaction: 'ci-failed', outcome: 'sent to the worker (attempt 1)' }]);
    expect(await gh.calls()).toContainEqual(['run', 'view', '--job', '56', '--log-failed', '-R', 'example/app']);
    await box.waitFor('the worker to read the CI log', async () => (await box!.agentLog(id)).includes('feedback: FAIL src/login.test.ts > accepts a + in the email'), 30_000);
    await box.waitForStatus(id, 'reviewing', 60_000);
    const log = await box.agentLog(id);
    expect(log).toMatch(/notified: \[orange\] CI failed on the pull request \(CI \/ test\)/);
    expect(log).toContain('committed: address review feedback');

    // The same failing run on the next pass: nothing fires again.
    expect((await monitor()).reactions).toEqual([]);

    // A reviewer requests changes: the review and its inline comment go to the worker, back through working.
    await gh.add({
      'pr view': { stdout: view({ head: 'second-commit', checks: [check('test', 'SUCCESS', 60)], decision: 'CHANGES_REQUESTED' }) },
      [`${pullApi}/reviews`]: { stdout: [{ id: 901, user: { login: 'ana' }, state: 'CHANGES_REQUESTED', body: 'Also trim the email.', submitted_at: '2026-01-01T10:00:00Z' }] },
      [`${pullApi}/comments`]: { stdout: [{ pull_request_review_id: 901, path: 'src/login.ts', line: 12, body: 'Trim before validating.' }] },
    });
    expect((await monitor()).reactions).toEqual([{ task: id, reaction: 'changes-requested', outcome: 'sent to the worker (attempt 1)' }]);
    await box.waitFor('the worker to read the review', async () => (await box!.agentLog(id)).includes('feedback: - src/login.ts:12: Trim before validating.'), 30_000);
    await box.waitForStatus(id, 'reviewing', 60_000);
    expect((await monitor()).reactions).toEqual([]);

    // Approved with green checks: an `action` notification that it can be merged, once.
    await gh.add({ 'pr view': { stdout: view({ head: 'third-commit', checks: [check('test', 'SUCCESS', 70)], decision: 'APPROVED' }) } });
    expect((await monitor()).reactions).toEqual([{ task: id, reaction: 'approved-and-green', outcome: 'a human was notified' }]);
    await box.waitFor('the approval notification', async () => hook!.requests.some((r) => JSON.parse(r.body).event === 'pull_request.approved'), 15_000);
    expect((await monitor()).reactions).toEqual([]);

    const history = await box.history(id);
    const statuses = history.filter((e) => e.type === 'status.changed').map((e) => e.to);
    expect(statuses).toEqual(['planning', 'working', 'agent-review', 'reviewing', 'working', 'agent-review', 'reviewing', 'working', 'agent-review', 'reviewing']);
    expect(history.filter((e) => e.type === 'reaction.fired').map((e) => e.reaction)).toEqual(['ci-failed', 'changes-requested', 'approved-and-green']);
    // Three review rounds with real agents: about 85 s on a loaded 2-core machine, so more than the suite's default.
  }, 300_000);
});
