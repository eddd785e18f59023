import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Orange, OrangePaths, pluginActions } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingActions } from './recording-actions.js';
import { tempDir } from './temp-dir.js';

let home: string | undefined;
afterEach(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

describe('recordingActions', () => {
  it("stands in for every plugin action: a task's start records them in order and runs their effects", async () => {
    home = await tempDir('recording');
    const workspace = join(home, 'ws');
    const plugin = recordingActions({ effects: { acquire_workspace: (ctx) => ctx.update({ workspace }) } });
    const orange = await Orange.create({ plugins: [plugin] }, { paths: new OrangePaths(home) });
    await orange.projects.add({ name: 'demo', path: join(home, 'repo'), default_branch: 'main' });
    const { task } = await orange.engine.createTask({ project: 'demo', summary: 'a task' });
    expect(task.meta.workspace).toBe(workspace);
    expect(plugin.calls).toEqual(['acquire_workspace', 'spawn_agent']);
  });

  it('records only the actions named, as the entry says', async () => {
    home = await tempDir('recording');
    const calls: string[] = [];
    const plugin = recordingActions({ name: 'agents-only', actions: ['spawn_agent'], calls, entry: (action, ctx) => `${action}:${ctx.task.meta.id}` });
    const others = recordingActions({ name: 'others', actions: pluginActions().filter((a) => a !== 'spawn_agent') });
    const orange = await Orange.create({ plugins: [plugin, others] }, { paths: new OrangePaths(home) });
    await orange.projects.add({ name: 'demo', path: join(home, 'repo'), default_branch: 'main' });
    const { task } = await orange.engine.createTask({ project: 'demo', summary: 'a task' });
    expect(calls).toEqual([`spawn_agent:${task.meta.id}`]);
    expect(others.calls).toEqual(['acquire_workspace']);
  });
});
