import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { MergeOptions, OrangePlugin, Scm } from './index.js';
import type { WorkflowInput } from '../workflow/definition.js';

let box: Sandbox;
afterEach(async () => box?.cleanup());

/** A workflow whose agent-less review ends in a merge, for fully autonomous runs. */
const autonomous: WorkflowInput = {
  name: 'autonomous',
  initial: 'pending',
  start: 'working',
  states: { pending: {}, working: { agent: 'worker' }, done: { terminal: true } },
  transitions: [
    { from: 'pending', to: 'working', by: ['agent', 'person', 'orange'] },
    { from: 'working', to: 'done', by: ['agent', 'person', 'orange'], gate: 'handoff', hooks: ['merge', 'delete_remote_branch'] },
  ],
  exit: { pending: { otherwise: 'mark' }, working: { advance: ['done'], otherwise: 'mark' } },
  create: { pending: {} },
  prompts: {},
};

/** An scm slot that records merges and answers with `outcome`. */
function scm(calls: Array<{ branch: string; options: MergeOptions }>, outcome: { merged: boolean; message: string }): OrangePlugin {
  const slot: Scm = {
    name: 'fake-scm',
    async merge(task, _project, options) {
      calls.push({ branch: task.meta.branch, options });
      return outcome;
    },
    async createPullRequest() {
      return { url: 'https://example.invalid/pr/1' };
    },
    async pullRequestState() {
      return null;
    },
  };
  return { name: 'fake-scm', apply: (orange) => orange.provide('scm', slot) };
}

describe('the merge action', () => {
  it('merges through the scm slot before the remote branch is deleted, and records task.merged', async () => {
    const calls: Array<{ branch: string; options: MergeOptions }> = [];
    box = await sandbox({ workflow: autonomous }, [scm(calls, { merged: true, message: 'merged feature/x' })], { recordCore: true });
    const ref = await taskIn(box, 'working', { body: '## Handoff\n\nDONE: x\n', meta: { branch: 'feature/x' } });
    const result = await box.orange.engine.transition(ref, 'done');
    expect(result.failedHooks).toEqual([]);
    expect(calls).toEqual([{ branch: 'feature/x', options: { strategy: 'ff', local: false } }]);
    expect(box.calls).toEqual(['delete_remote_branch']);
    const merged = (await box.orange.store.history('demo', ref.id)).find((e) => e.type === 'task.merged');
    expect(merged).toMatchObject({ via: 'fake-scm', strategy: 'ff', message: 'merged feature/x' });
  });

  it("fails the action with the scm's sentence when it could not merge: the task is done but flagged", async () => {
    const calls: Array<{ branch: string; options: MergeOptions }> = [];
    box = await sandbox({ workflow: autonomous }, [scm(calls, { merged: false, message: 'feature/x does not fast-forward onto main' })]);
    const ref = await taskIn(box, 'working', { body: '## Handoff\n\nDONE: x\n', meta: { merge_strategy: 'merge' } });
    const result = await box.orange.engine.transition(ref, 'done');
    expect(calls[0]?.options.strategy).toBe('merge');
    expect(result.failedHooks).toEqual(['merge']);
    expect(result.task.meta).toMatchObject({ status: 'done', attention: 'hook failed: merge' });
    const failed = (await box.orange.store.history('demo', ref.id)).find((e) => e.type === 'hook.failed');
    expect(failed).toMatchObject({ hook: 'merge', error: 'feature/x does not fast-forward onto main' });
  });

  it('fails with E_NO_PROVIDER naming the slot when no plugin provides scm', async () => {
    box = await sandbox({ workflow: autonomous });
    const ref = await taskIn(box, 'working', { body: '## Handoff\n\nDONE: x\n' });
    const result = await box.orange.engine.transition(ref, 'done');
    expect(result.failedHooks).toEqual(['merge']);
    const failed = (await box.orange.store.history('demo', ref.id)).find((e) => e.type === 'hook.failed');
    expect(failed?.error).toMatch(/no plugin provides the scm slot/);
  });
});
