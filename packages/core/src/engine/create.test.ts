import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, sandbox, type Sandbox } from '../../test/fixtures.js';
import { OrangeError } from '../errors/index.js';
import type { OrangePlugin } from '../plugin/index.js';

let box: Sandbox | undefined;
afterEach(async () => box?.cleanup());

/** A plugin whose check of a task's start throws (as a workspace plugin does when the base branch vanished) while `broken.on`. */
function brokenStart(broken: { on: boolean }): OrangePlugin {
  return {
    name: 'broken-start',
    apply: (orange) =>
      orange.hooks.beforeTransition.tapPromise('broken-start', async (event) => {
        if (broken.on && event.from === 'pending') throw new OrangeError('E_WORKSPACE', 'the base branch is gone');
        return undefined;
      }),
  };
}

describe('createTask', () => {
  it('says a task whose start failed was created and not started, and flags it until a start succeeds', async () => {
    const broken = { on: true };
    box = await sandbox({}, [brokenStart(broken)]);
    const error = await errorOf(box.orange.engine.createTask({ actor: 'person', project: 'demo', branch: 'feature/ghost', summary: 'a ghost' }));
    const { tasks } = await box.orange.store.list('demo');
    expect(tasks).toHaveLength(1);
    const id = tasks[0]!.meta.id;
    expect(error).toMatchObject({ code: 'E_WORKSPACE' });
    expect(error.message).toBe(
      `task ${id} was created but not started: the base branch is gone; once that is fixed start it with orange task spawn ${id}, or remove it with orange task delete ${id}`,
    );
    expect(tasks[0]!.meta).toMatchObject({ status: 'pending', attention: 'not started: the base branch is gone' });

    broken.on = false;
    const started = await box.orange.engine.spawn({ project: 'demo', id });
    expect(started.task.meta).toMatchObject({ status: 'planning', attention: null });
  });

  it('asks the workspaces slot about the base before it creates a task to start, and creates nothing when refused', async () => {
    const asked: string[] = [];
    const refusingBase: OrangePlugin = {
      name: 'refusing-base',
      apply: (orange) =>
        orange.provide('workspaces', {
          name: 'refusing-base',
          init: async () => [],
          list: async () => [],
          gc: async () => ({ freed: [] }),
          baseRef: async (project) => {
            asked.push(project.name);
            throw new OrangeError('E_WORKSPACE', `project ${project.name}: no base`);
          },
        }),
    };
    box = await sandbox({}, [refusingBase]);
    const error = await errorOf(box.orange.engine.createTask({ actor: 'person', project: 'demo', branch: 'feature/none', summary: 'never made' }));
    expect(error).toMatchObject({ code: 'E_WORKSPACE', message: 'project demo: no base' });
    expect(asked).toEqual(['demo']);
    expect((await box.orange.store.list('demo')).tasks).toEqual([]);
    // Put aside (no start), it is made: nothing needs the base yet.
    await box.orange.engine.createTask({ actor: 'person', project: 'demo', branch: 'feature/later', summary: 'later', spawn: false });
    expect((await box.orange.store.list('demo')).tasks).toHaveLength(1);
    expect(asked).toEqual(['demo']);
  });
});
