import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Monitor, newTaskId, newTaskMeta, noopActions, Orange, OrangePaths, type Notification, type OrangePlugin, type Runtime, type TaskRef } from '@orange/core';
import { github } from '@orange/plugin-github';
import { standInGh, type GhAnswers } from '../../github/test/stand-in-gh.js';
import { reactions } from '../src/index.js';
import type { ReactionsOptionsInput } from '../src/options.js';

export const PR = 'https://github.com/acme/app/pull/7';

export interface ReactionsBox {
  readonly orange: Orange;
  /** Lines typed to each worker (`<task id>` → lines). */
  readonly typed: Map<string, string[]>;
  /** Workers alive (task ids); a task not in it has no worker to type to. */
  readonly alive: Set<string>;
  readonly notifications: Notification[];
  task(status?: string): Promise<TaskRef>;
  gh(answers: GhAnswers): Promise<void>;
  ghCalls(): Promise<string[][]>;
  pass(): ReturnType<Monitor['pass']>;
  cleanup(): Promise<void>;
}

/**
 * Orange with the github plugin on a stand-in gh (a script answering from a JSON file and
 * recording its argv), the reactions plugin, no-op actions, a notifier recording what it gets,
 * and a runtime slot that records the lines typed to workers (the tmux side is tested in plugins/tmux and e2e).
 */
export async function reactionsBox(options: ReactionsOptionsInput = {}): Promise<ReactionsBox> {
  const root = await mkdtemp(join(tmpdir(), 'orange-reactions-'));
  const repo = join(root, 'repo');
  await mkdir(repo);
  const stand = await standInGh(root);
  const typed = new Map<string, string[]>();
  const alive = new Set<string>();
  const notifications: Notification[] = [];
  const runtime: Runtime = {
    name: 'recording',
    snapshot: async () => ({ isAlive: (task, role) => role === 'worker' && alive.has(task.id), sessions: [], processes: 0 }),
    attach: async () => undefined,
    sessionName: (task) => `app/${task.id}`,
    killSession: async () => undefined,
    async sendLine(task, role, line) {
      if (role !== 'worker' || !alive.has(task.id)) return false;
      typed.set(task.id, [...(typed.get(task.id) ?? []), line]);
      return true;
    },
  };
  const support: OrangePlugin = {
    name: 'support',
    apply(orange) {
      orange.provide('runtime', runtime);
      orange.notifications.register({ name: 'recorder', send: async (n) => void notifications.push(n) });
      // A respawn "starts" the worker: it is alive from then on.
      orange.hooks.actions.for('spawn_agent').tapPromise('support', async (ctx) => {
        alive.add(ctx.task.meta.id);
      });
    },
  };
  const home = join(root, 'home');
  const orange = await Orange.create(
    { defaults: false, plugins: [noopActions({ except: ['spawn_agent'] }), github({ ghBin: stand.bin }), reactions(options), support] },
    { paths: new OrangePaths(home) },
  );
  await orange.projects.add({ name: 'app', path: repo, default_branch: 'main' });
  return {
    orange,
    typed,
    alive,
    notifications,
    async task(status = 'reviewing') {
      const id = newTaskId();
      await orange.store.create({ meta: newTaskMeta({ id, project: 'app', branch: `feat/${id}`, status, summary: 'Add a login form', pr_url: PR }), body: '## Context\n\nLogin.\n' });
      alive.add(id);
      return { project: 'app', id };
    },
    gh: (answers) => stand.answer(answers),
    ghCalls: () => stand.calls(),
    pass: () => new Monitor(orange).pass(),
    async cleanup() {
      await orange.notifications.settle();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** `gh pr view` output of an open PR with these checks, review decision and latest reviews. */
export function prView(fields: { head?: string; checks?: unknown[]; decision?: string; latestReviews?: unknown[] } = {}): { stdout: string } {
  return {
    stdout: JSON.stringify({
      state: 'OPEN',
      url: PR,
      headRefOid: fields.head ?? 'aaa111',
      reviewDecision: fields.decision ?? '',
      statusCheckRollup: fields.checks ?? [],
      latestReviews: fields.latestReviews ?? [],
    }),
  };
}

export const failedTest = (run = 55) => ({
  __typename: 'CheckRun',
  name: 'test',
  workflowName: 'CI',
  status: 'COMPLETED',
  conclusion: 'FAILURE',
  detailsUrl: `https://github.com/acme/app/actions/runs/${run}/job/${run + 1}`,
});
export const passed = (name: string) => ({ __typename: 'CheckRun', name, workflowName: 'CI', status: 'COMPLETED', conclusion: 'SUCCESS', detailsUrl: `https://github.com/acme/app/actions/runs/1/${name}` });
