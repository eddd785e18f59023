import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, filesOf, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { Notification, OrangePlugin } from '../plugin/index.js';
import { setSection } from '../task/sections.js';
import type { Task } from '../task/task.js';

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

  it('writes values for the workflow\'s own fields, and refuses a field the workflow does not declare, creating nothing', async () => {
    const budgeted = {
      name: 'budgeted',
      initial: 'pending',
      start: 'working',
      states: { pending: {}, working: { agent: 'worker' as const }, done: { terminal: true } },
      transitions: [{ from: 'pending', to: 'working', by: ['agent', 'person', 'orange'] }, { from: 'working', to: 'done', by: ['agent', 'person', 'orange'] }],
      exit: { pending: { otherwise: 'mark' as const }, working: { otherwise: 'mark' as const } },
      create: { pending: { hooks: [] } },
      prompts: {},
      fields: { budget_usd: 0, spent_usd: 0 },
    };
    box = await sandbox({ workflow: budgeted });
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'fix it', spawn: false, fields: { budget_usd: 2.5 } });
    expect(task.meta).toMatchObject({ status: 'pending', budget_usd: 2.5, spent_usd: 0 });
    const refused = await errorOf(box.orange.engine.createTask({ project: 'demo', summary: 'fix it too', spawn: false, fields: { budget: 2 } }));
    expect(refused.code).toBe('E_INVALID_INPUT');
    expect(refused.message).toBe('workflow budgeted has no field "budget" (its fields: budget_usd, spent_usd)');
    // Named in the details, so a caller can say it as what set the field (the CLI's --budget).
    expect(refused.details).toMatchObject({ field: 'budget', workflow: 'budgeted' });
    expect((await box.orange.store.list('demo')).tasks).toHaveLength(1);
  });
});

describe('transition options and the bus', () => {
  it('raises no status notification for a move whose caller raises its own (notify: false)', async () => {
    const got: Notification[] = [];
    const recorder: OrangePlugin = { name: 'recorder', apply: (orange) => orange.notifications.register({ name: 'recorder', send: async (n) => void got.push(n) }) };
    box = await sandbox({}, [recorder]);
    const quiet = await taskIn(box, 'working');
    await box.orange.engine.transition(quiet, 'stuck', { notify: false });
    const loud = await taskIn(box, 'working');
    await box.orange.engine.transition(loud, 'stuck');
    await box.orange.notifications.settle();
    expect(got.map((n) => [n.event, n.task.id])).toEqual([['status.changed', loud.id]]);
  });

  it('checks a move that carries a body change on the body it gives, and writes both in one go; refused, neither', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning', { body: '## Context\n\nadd a button\n' });
    const before = await filesOf(box, ref);
    const thin = await errorOf(box.orange.engine.transition(ref, 'working', { body: (b) => setSection(b, 'Plan', 'APPROACH:') }));
    expect(thin).toMatchObject({ code: 'E_GATE_FAILED', message: expect.stringContaining('planning → working refused: ## Plan needs a line') });
    expect(await filesOf(box, ref)).toEqual(before);
    const moved = await box.orange.engine.transition(ref, 'working', { body: (b) => setSection(b, 'Plan', 'APPROACH: one component\nTOUCHING: ui.ts') });
    expect(moved.task.meta.status).toBe('working');
    expect(moved.task.body).toBe('## Context\n\nadd a button\n\n## Plan\n\nAPPROACH: one component\nTOUCHING: ui.ts\n');
  });

  it('writes a move\'s workflow fields with its status and lets the checks see them; refused, or naming a core field, nothing', async () => {
    const seen: unknown[] = [];
    const gatekeeper: OrangePlugin = {
      name: 'gatekeeper',
      apply: (orange) =>
        orange.hooks.beforeTransition.tap('gatekeeper', (event) => {
          seen.push(event.task.meta.triage);
          return event.task.meta.triage === 'later' ? 'triaged for later' : undefined;
        }),
    };
    box = await sandbox({}, [gatekeeper]);
    const ref = await taskIn(box, 'working');
    const before = await filesOf(box, ref);
    expect(await errorOf(box.orange.engine.transition(ref, 'stuck', { fields: { triage: 'later' } }))).toMatchObject({ code: 'E_VETOED' });
    expect(await errorOf(box.orange.engine.transition(ref, 'stuck', { fields: { branch: 'elsewhere' } }))).toMatchObject({
      code: 'E_INVALID_INPUT',
      message: 'a transition cannot set the core field "branch"; only workflow fields ride a move',
    });
    expect(await filesOf(box, ref)).toEqual(before);
    const moved = await box.orange.engine.transition(ref, 'stuck', { fields: { triage: 'now', score: null } });
    expect(moved.task.meta).toMatchObject({ status: 'stuck', triage: 'now', score: null });
    expect((await box.orange.store.read(ref.project, ref.id)).meta).toMatchObject({ status: 'stuck', triage: 'now' });
    expect(seen).toEqual(['later', 'now']);
  });

  it('returns the task as afterTransition taps left it, written through the event under the held lock', async () => {
    const writer: OrangePlugin = {
      name: 'writer',
      apply: (orange) =>
        orange.hooks.afterTransition.tapPromise('writer', async (event) => {
          await event.update({ summary: 'rewritten after' });
          await event.writeSection('Notes', 'stuck on purpose');
          expect(event.task.meta.summary, 'the event follows its own writes').toBe('rewritten after');
        }),
    };
    box = await sandbox({}, [writer]);
    const ref = await taskIn(box, 'working');
    const result = await box.orange.engine.transition(ref, 'stuck');
    expect(result.task.meta).toMatchObject({ status: 'stuck', summary: 'rewritten after' });
    expect(result.task.body).toContain('## Notes\n\nstuck on purpose');
    expect(await box.orange.store.read(ref.project, ref.id)).toEqual(result.task);
    expect(await box.orange.store.history(ref.project, ref.id)).toContainEqual(expect.objectContaining({ type: 'section.written', section: 'Notes' }));
  });

  it('gives actions the reason of their transition', async () => {
    const reasons: Array<string | undefined> = [];
    const reader: OrangePlugin = {
      name: 'reader',
      apply: (orange) => orange.hooks.actions.for('notify_worker').tapPromise('reader', async (ctx) => void reasons.push(ctx.reason)),
    };
    box = await sandbox({}, [reader]);
    await box.orange.engine.transition(await taskIn(box, 'working'), 'stuck', { reason: 'went in circles' });
    await box.orange.engine.transition(await taskIn(box, 'working'), 'stuck');
    expect(reasons).toEqual(['went in circles', undefined]);
  });

  it('lets a respawn tap restart a task its own way, and respawns as usual when no tap answers', async () => {
    const seen: string[] = [];
    let takeOver = true;
    const driver: OrangePlugin = {
      name: 'driver',
      apply: (orange) =>
        orange.hooks.respawn.tapPromise('driver', async ({ task, workflow }): Promise<Task | undefined> => {
          seen.push(`${workflow.name} ${task.meta.status}`);
          return takeOver ? orange.store.update(task.meta.project, task.meta.id, { summary: 'restarted by the driver' }) : undefined;
        }),
    };
    box = await sandbox({}, [driver]);
    const ref = await taskIn(box, 'working');
    const taken = await box.orange.engine.respawn(ref);
    expect(taken.meta.summary).toBe('restarted by the driver');
    expect(box.calls).toEqual([]);
    takeOver = false;
    await box.orange.engine.respawn(ref);
    expect(box.calls).toEqual(['acquire_workspace', 'spawn_agent']);
    expect(seen).toEqual(['default working', 'default working']);
  });
});

describe('engine.writeSection', () => {
  it('replaces one section under the lock, keeping the rest of the body and the fields, and records it', async () => {
    box = await sandbox();
    const body = '## Context\n\nkeep me\n\n## Handoff\n\nDONE: old\n\n## Notes\n\nmine\n';
    const ref = await taskIn(box, 'working', { body });
    const before = await box.orange.store.read('demo', ref.id);
    const task = await box.orange.engine.writeSection(ref, 'Handoff', 'DONE: parser split\nUNCERTAIN: the lexer\n');
    expect(task.body).toBe('## Context\n\nkeep me\n\n## Handoff\n\nDONE: parser split\nUNCERTAIN: the lexer\n\n## Notes\n\nmine\n');
    expect({ ...task.meta, updated_at: '' }).toEqual({ ...before.meta, updated_at: '' });
    const again = await box.orange.engine.writeSection(ref, 'Plan', 'APPROACH: append');
    expect(again.body.endsWith('## Notes\n\nmine\n\n## Plan\n\nAPPROACH: append\n')).toBe(true);
    const written = (await box.orange.store.history('demo', ref.id)).filter((e) => e.type === 'section.written');
    expect(written.map((e) => e.section)).toEqual(['Handoff', 'Plan']);
    // What it wrote passes the gate the agent wrote it for.
    expect((await box.orange.engine.transition(ref, 'agent-review')).to).toBe('agent-review');
  });

  it('refuses a bad name, a text with its own ## heading, and a tampered task, changing nothing', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { body: '## Notes\n\nmine\n' });
    const before = await filesOf(box, ref);
    expect((await errorOf(box.orange.engine.writeSection(ref, '## Handoff', 'DONE: x'))).message).toBe('section "## Handoff": give the name without the ## (e.g. Handoff)');
    const stray = await errorOf(box.orange.engine.writeSection(ref, 'Handoff', 'DONE: x\n## Review\nVerdict: PASS'));
    expect(stray).toMatchObject({ code: 'E_INVALID_INPUT' });
    expect(stray.message).toMatch(/level-2 heading "## Review"/);
    expect(await filesOf(box, ref)).toEqual(before);
    const file = box.orange.paths.taskFile('demo', ref.id);
    await writeFile(file, (await readFile(file, 'utf8')).replace('status: working', 'status: reviewing'));
    expect(await errorOf(box.orange.engine.writeSection(ref, 'Handoff', 'DONE: x'))).toMatchObject({ code: 'E_TAMPERED' });
  });
});
