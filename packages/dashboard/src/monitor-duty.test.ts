import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { newTaskId, newTaskMeta, noopActions, Orange, OrangePaths, type OrangePlugin, type PullRequestState, type Scm } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { MonitorDuty } from './monitor-duty.js';
import { TaskFeed } from './task-feed.js';

/** An SCM slot that answers from `state` and records every read (each stands for one gh call). */
function countingScm(calls: string[], state: () => PullRequestState): OrangePlugin {
  const scm: Scm = {
    name: 'counting',
    merge: async () => ({ merged: false, message: 'not here' }),
    createPullRequest: async () => ({ url: '' }),
    async pullRequestState(task) {
      calls.push(`state ${task.meta.id}`);
      return state();
    },
    async pullRequestFeedback(task) {
      calls.push(`feedback ${task.meta.id}`);
      return { state: state(), url: task.meta.pr_url ?? '', headSha: 'abc', checks: [{ name: 'CI', state: 'success', url: null, runId: 'r1' }], reviews: [], reviewDecision: null };
    },
  };
  return { name: 'counting-scm', apply: (orange) => orange.provide('scm', scm) };
}

interface Box {
  readonly orange: Orange;
  readonly calls: string[];
  readonly id: string;
  feed(pullRequestMs: number): Promise<TaskFeed>;
  duty(feed: TaskFeed): MonitorDuty;
}

let home: string | undefined;
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

/** A real Orange on a throwaway home with one task in reviewing whose pull request is open. */
async function box(): Promise<Box> {
  home = await mkdtemp(join(tmpdir(), 'orange-duty-'));
  const calls: string[] = [];
  const orange = await Orange.create({ defaults: false, plugins: [noopActions(), countingScm(calls, () => 'open')] }, { paths: new OrangePaths(home) });
  await mkdir(join(home, 'repo'));
  await orange.projects.add({ name: 'app', path: join(home, 'repo'), default_branch: 'main' });
  const id = newTaskId();
  await orange.store.create({ meta: newTaskMeta({ id, project: 'app', branch: 'feat/pr', status: 'reviewing', summary: 'with a pull request', pr_url: 'https://github.com/acme/app/pull/7' }), body: '' });
  return {
    orange,
    calls,
    id,
    async feed(pullRequestMs) {
      const feed = new TaskFeed(orange, { project: 'app', pullRequestMs });
      stops.push(() => feed.stop());
      await feed.start();
      return feed;
    },
    duty(feed) {
      // The timer never fires within a test: each turn is taken by hand.
      const duty = new MonitorDuty(orange, 600_000, (report) => (report ? feed.knowPullRequests(report.pullRequestsRead) : feed.refreshPullRequests()));
      stops.push(() => duty.stop());
      return duty;
    },
  };
}

/** Another process (this test's parent, alive) polls every project: this dashboard stands by. */
async function anotherMonitorPolls(orange: Orange): Promise<number> {
  const pid = process.ppid;
  await mkdir(dirname(orange.paths.monitorLeaseFile), { recursive: true });
  await writeFile(orange.paths.monitorLeaseFile, JSON.stringify({ holders: [{ pid, start: '', kind: 'monitor', project: null, since: '2026-01-01T00:00:00.000Z' }] }));
  return pid;
}

describe("the dashboard's monitor duty and the PR column", () => {
  it('shows what its own pass read (state and checks) and asks the SCM nothing more, turn after turn', async () => {
    const b = await box();
    const feed = await b.feed(0);
    const duty = b.duty(feed);
    expect(b.calls, 'opening the dashboard asks nothing: the first turn reads').toEqual([]);
    await duty.turn();
    expect(duty.label.get()).toBe('monitor: here');
    expect(feed.snapshot().rows.get(b.id)?.pr).toMatchObject({ number: 7, state: 'open', checks: '✓' });
    // One read, by the pass: its feedback carried the state.
    expect(b.calls).toEqual([`feedback ${b.id}`]);
    await duty.turn();
    expect(b.calls).toEqual([`feedback ${b.id}`, `feedback ${b.id}`]);
  });

  it('asks the SCM itself only when another process runs the pass: once per task per interval', async () => {
    const b = await box();
    const pid = await anotherMonitorPolls(b.orange);
    const feed = await b.feed(600_000);
    const duty = b.duty(feed);
    await duty.turn();
    expect(duty.label.get()).toBe(`monitor: pid ${pid}`);
    expect(b.calls).toEqual([`feedback ${b.id}`]);
    expect(feed.snapshot().rows.get(b.id)?.pr).toMatchObject({ state: 'open', checks: '✓' });
    await duty.turn();
    expect(b.calls, 'not again within the interval').toEqual([`feedback ${b.id}`]);
  });

  it('runs one round of its own reads at a time', async () => {
    const b = await box();
    await anotherMonitorPolls(b.orange);
    const feed = await b.feed(0);
    await Promise.all([feed.refreshPullRequests(), feed.refreshPullRequests(), feed.refreshPullRequests()]);
    expect(b.calls).toEqual([`feedback ${b.id}`]);
    await feed.refreshPullRequests();
    expect(b.calls).toEqual([`feedback ${b.id}`, `feedback ${b.id}`]);
  });
});
