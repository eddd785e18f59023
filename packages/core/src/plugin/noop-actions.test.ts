import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { noopActions, workflowActions } from './noop-actions.js';
import { Orange } from '../orange.js';
import { OrangePaths } from '../store/paths.js';
import { defaultWorkflow } from '../workflow/default.js';

let home: string | undefined;
afterEach(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

describe('workflowActions', () => {
  it('lists each action the default workflow names in transitions and create rules, once', () => {
    expect(workflowActions(defaultWorkflow).sort()).toEqual([
      'acquire_workspace',
      'delete_remote_branch',
      'increment_review_round',
      'kill_reviewer',
      'kill_session',
      'notify_worker',
      'release_workspace',
      'spawn_agent',
      'spawn_next',
      'spawn_reviewer',
    ]);
  });
});

describe('noopActions', () => {
  it('provides every action the built-in workflows need beyond the core, so Orange loads with no other plugin', async () => {
    home = await mkdtemp(join(tmpdir(), 'orange-noop-'));
    const orange = await Orange.create({ defaults: false, plugins: [noopActions()] }, { paths: new OrangePaths(home) });
    expect(orange.plugins).toContain('noop-actions');
  });

  it('leaves out the actions it is told to, and the load then names the missing one', async () => {
    home = await mkdtemp(join(tmpdir(), 'orange-noop-'));
    await expect(Orange.create({ defaults: false, plugins: [noopActions({ except: ['spawn_next'] })] }, { paths: new OrangePaths(home) })).rejects.toMatchObject({
      message: expect.stringContaining('no plugin provides hook "spawn_next"'),
    });
  });
});
