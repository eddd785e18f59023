import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskId, newTaskMeta, noopActions, Orange, OrangePaths, type OrangePlugin, type TaskRef } from '@orange/core';

export interface OrangeBox {
  readonly orange: Orange;
  /** A task written straight into `status` (its ledger agrees), to move with the engine. */
  task(status: string, summary?: string): Promise<TaskRef>;
  /** The JSON lines of orange.log. */
  log(): Promise<Array<Record<string, unknown>>>;
  cleanup(): Promise<void>;
}

/** An Orange instance on a temp ORANGE_HOME with no-op actions, the given plugins and one project. */
export async function orangeBox(plugins: OrangePlugin[], config: Record<string, unknown> = {}): Promise<OrangeBox> {
  const home = await mkdtemp(join(tmpdir(), 'orange-notifier-'));
  const orange = await Orange.create({ defaults: false, ...config, plugins: [noopActions(), ...plugins] }, { paths: new OrangePaths(home) });
  await orange.projects.add({ name: 'app', path: join(home, 'repo'), default_branch: 'main' });
  return {
    orange,
    async task(status, summary = 'Add a login form') {
      const id = newTaskId();
      await orange.store.create({ meta: newTaskMeta({ id, project: 'app', branch: 'feature/login', status, summary }), body: '' });
      return { project: 'app', id };
    },
    async log() {
      const text = await readFile(orange.paths.logFile, 'utf8').catch(() => '');
      return text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    async cleanup() {
      await orange.notifications.settle();
      await rm(home, { recursive: true, force: true });
    },
  };
}
