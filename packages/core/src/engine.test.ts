import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../test/fixtures.js';
import { setSection } from './sections.js';

let box: Sandbox;
afterEach(async () => box?.cleanup());

async function edit(b: Sandbox, id: string, section: string, content: string) {
  const file = b.orange.paths.taskFile('demo', id);
  const text = await readFile(file, 'utf8');
  await writeFile(file, setSection(text, section, content));
}

describe('engine', () => {
  it('drives a task through the default happy path with hooks in order', async () => {
    box = await sandbox();
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'add a button' });
    const ref = { project: 'demo', id: task.meta.id };
    expect(task.meta.status).toBe('planning');
    expect(box.calls).toEqual(['acquire_workspace', 'spawn_agent']);
    await edit(box, ref.id, 'Plan', 'APPROACH: add it\nTOUCHING: ui.ts');
    await box.orange.engine.transition(ref, 'working');
    await edit(box, ref.id, 'Handoff', 'DONE: added');
    const review = await box.orange.engine.transition(ref, 'agent-review');
    expect(review.task.meta.review_round).toBe(1);
    await edit(box, ref.id, 'Review', '**Verdict: PASS**\nfine');
    await box.orange.engine.transition(ref, 'reviewing');
    const done = await box.orange.engine.transition(ref, 'done');
    expect(done.task.meta.status).toBe('done');
    const history = await box.orange.store.history('demo', ref.id);
    expect(history.filter((e) => e.type === 'status.changed').map((e) => e.to)).toEqual([
      'planning',
      'working',
      'agent-review',
      'reviewing',
      'done',
    ]);
  });

  it('refuses working → agent-review without a Handoff field and changes nothing', async () => {
    box = await sandbox();
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'x' });
    const ref = { project: 'demo', id: task.meta.id };
    await edit(box, ref.id, 'Plan', 'APPROACH: a');
    await box.orange.engine.transition(ref, 'working');
    await edit(box, ref.id, 'Handoff', 'DONE:');
    const before = await readFile(box.orange.paths.taskFile('demo', ref.id), 'utf8');
    await expect(box.orange.engine.transition(ref, 'agent-review')).rejects.toMatchObject({
      code: 'E_GATE_FAILED',
      message: expect.stringContaining('working → agent-review refused: ## Handoff needs a line'),
    });
    expect(await readFile(box.orange.paths.taskFile('demo', ref.id), 'utf8')).toBe(before);
  });
});

describe('createTask', () => {
  it('reports create actions that failed, and flags the task for attention', async () => {
    const failing = {
      name: 'failing-reviewer',
      apply(orange: Sandbox['orange']) {
        orange.hooks.actions.for('spawn_reviewer').tapPromise('failing-reviewer', async () => {
          throw new Error('no reviewer today');
        });
      },
    };
    box = await sandbox({}, [failing]);
    const result = await box.orange.engine.createTask({ project: 'demo', summary: 'review a branch', status: 'agent-review' });
    expect(result.failedHooks).toEqual(['spawn_reviewer']);
    expect(result.task.meta.attention).toBe('hook failed: spawn_reviewer');
    const history = await box.orange.store.history('demo', result.task.meta.id);
    expect(history.map((e) => e.type)).toContain('hook.failed');
  });

  it('reports no failed actions for a clean start', async () => {
    box = await sandbox();
    const result = await box.orange.engine.createTask({ project: 'demo', summary: 'plan it' });
    expect(result).toMatchObject({ spawned: true, failedHooks: [] });
  });
});
