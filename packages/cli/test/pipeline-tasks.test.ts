/**
 * The pipeline workflow through the CLI's own commands: `task create --budget`, `task list`'s
 * PIPELINE column, `task cancel` (stop, then abandon) and `task delete`, as people read them.
 * The pipeline driver really runs in tmux with the demo's scripted headless agent.
 */
import { join } from 'node:path';
import type { TaskMeta } from '@orange/core';
import { builtEntryUrl, pipelineAgent } from '@orange/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

const plugin = (dir: string) => JSON.stringify(builtEntryUrl(dir));
const scripted = { name: 'scripted', worker: ['sleep', '300'], headless: [process.execPath, pipelineAgent, '{phase}', '{model}', '{prompt}'], tiers: ['haiku', 'sonnet', 'opus'] };
const CONFIG = [
  `import { command } from ${plugin('plugins/harness-command')};`,
  `import { pipeline } from ${plugin('plugins/pipeline')};`,
  'export default {',
  "  harness: 'scripted',",
  `  plugins: [command(${JSON.stringify(scripted)}), pipeline({ budgetUsd: 5 })],`,
  '};',
  '',
].join('\n');

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ config: CONFIG, poolSize: 4 });
  await box.json(['project', 'update', 'demo', '--workflow', 'pipeline']);
  await box.addProject('plain');
});
afterAll(() => box?.cleanup());

async function waitForStatus(id: string, status: string): Promise<TaskMeta> {
  try {
    await box.waitFor(`task ${id} to be ${status}`, async () => (await box.task(id)).meta.status === status, 60_000);
  } catch (error) {
    const log = await box.orange(['log', '--lines', '40']);
    throw new Error(`${(error as Error).message}\nhistory: ${JSON.stringify(await box.history(id))}\nlog:\n${log.stdout}`);
  }
  return (await box.task(id)).meta;
}

describe('pipeline tasks on the command line', () => {
  it('creates a task with its own budget, and refuses --budget for another workflow or a bad amount in one line, creating nothing', async () => {
    const meta = await box.createTask(['fix/budget', 'Fix the budget line', '--budget', '2.5']);
    expect(meta).toMatchObject({ status: 'created', budget_usd: 2.5 });
    const plain = await box.orange(['task', 'create', 'x/plain', 'Plain task', '--budget', '1', '--project', 'plain']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe('orange: --budget is for pipeline tasks; project plain runs the default workflow, which has no budget');
    const bad = await box.jsonError(['task', 'create', 'x/bad', 'Bad budget', '--budget', 'lots']);
    expect(bad.error).toBe('--budget must be a positive number of USD, not "lots"');
    const all = await box.json<{ tasks: TaskMeta[] }>(['task', 'list', '--all']);
    expect(all.tasks.map((t) => t.branch)).toEqual(['fix/budget']);
  });

  it("shows a new task's budget right after task create, before it starts: the config's budgetUsd", async () => {
    const meta = await box.createTask(['fix/shown', 'Show the budget']);
    expect(meta).toMatchObject({ status: 'created', budget_usd: 5, cost_total_usd: 0 });
    const show = await box.orange(['task', 'show', meta.id]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout.split('\n')).toContain('budget_usd: 5');
    const list = await box.orange(['task', 'list']);
    expect(list.stdout.split('\n').find((l) => l.includes('fix/shown'))).toMatch(/ created +\$0\.00\/\$5\.00 +fix\/shown /);
  });

  it("refuses stopped to task update and task move, naming orange task cancel, which stops the running task after asking and reports", async () => {
    const meta = await box.createTask(['fix/stop', 'Stop me'], { spawn: true, context: 'agent.intent: bugfix 0.9\nagent.pace: 30000\n' });
    expect(meta.status).toBe('classifying');
    const update = await box.orange(['task', 'update', meta.id, '--status', 'stopped']);
    expect(update.code).toBe(1);
    expect(update.stderr).toBe(`orange: classifying → stopped refused: stopped is a person's move, not the task's agent's (orange task cancel ${meta.id})`);
    const move = await box.orange(['task', 'move', meta.id, 'stopped', '--yes']);
    expect(move.code).not.toBe(0);
    expect(move.stderr).toBe(`orange: classifying → stopped has a command of its own: orange task cancel ${meta.id}`);
    expect((await box.task(meta.id)).meta.status).toBe('classifying');
    const asked = await box.orange(['task', 'cancel', meta.id]);
    expect(asked.stderr).toMatch(/^orange: Stop task .* keeping its checkpoint for orange task resume needs confirmation/);
    const stop = await box.orange(['task', 'cancel', meta.id, '--yes']);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout.split('\n')).toEqual([
      `task ${meta.id}: classifying → stopped`,
      `Stopped task ${meta.id}; its checkpoint is kept (resume with: orange task resume ${meta.id})`,
      'Completed: nothing',
      'In progress: classify',
      'Cost so far: $0.0000 of a $5.00 budget',
    ]);
    await box.json(['task', 'cancel', meta.id, '--yes']);
  }, 60_000);

  it('shows phase, tier, attempt and cost/budget in the PIPELINE column of task list', async () => {
    const done = await box.createTask(['fix/typo', 'Fix the greeting typo'], { spawn: true, context: 'agent.intent: bugfix 0.9\nagent.cost: 0.02\nagent.pace: 50\n' });
    const finished = await waitForStatus(done.id, 'completed');
    expect(finished).toMatchObject({ phases_done: 'reproduce,fix', tier: 'haiku' });
    const list = await box.orange(['task', 'list']);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID +STATUS +PIPELINE +BRANCH +AGENTS +UPDATED +SUMMARY$/);
    expect(lines.find((l) => l.startsWith(done.id))).toMatch(/ completed +fix 2\/2 haiku #1 \$0\.06\/\$5\.00 +fix\/typo /);
    expect(lines.find((l) => l.includes('fix/budget'))).toMatch(/ created +\$0\.00\/\$2\.50 +fix\/budget /);
  }, 90_000);

  it('cancels a task into stopped with its report, cancels it again to abandon it (failed, checkpoint kept), and then deletes it', async () => {
    const meta = await box.createTask(['fix/abandon', 'Abandon me', '--budget', '1.5']);
    const askedToStop = await box.orange(['task', 'cancel', meta.id]);
    expect(askedToStop.stderr).toBe(`orange: Stop task ${meta.id} (created, fix/abandon), keeping its checkpoint for orange task resume needs confirmation and there is no terminal to ask; pass --yes`);
    const stop = await box.orange(['task', 'cancel', meta.id, '--yes']);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout.split('\n')).toEqual([
      `task ${meta.id}: created → stopped`,
      `Stopped task ${meta.id}; its checkpoint is kept (resume with: orange task resume ${meta.id})`,
      'Completed: nothing',
      'In progress: nothing',
      'Cost so far: $0.0000 of a $1.50 budget',
    ]);
    expect((await box.task(meta.id)).meta.stop_reason).toBe('cancelled');
    const early = await box.orange(['task', 'delete', meta.id, '--yes']);
    expect(early.stderr).toMatch(/only a finished task .* cancel it first/);
    const asked = await box.orange(['task', 'cancel', meta.id]);
    expect(asked.stderr).toMatch(/^orange: Abandon stopped task .*: give up the progress in its checkpoint \(the file is kept for inspection\) and end it failed needs confirmation/);
    const abandon = await box.orange(['task', 'cancel', meta.id, '--yes']);
    expect(abandon.code, abandon.stderr).toBe(0);
    const checkpoint = join(box.paths.taskDir('demo', meta.id), 'checkpoint.json');
    expect(abandon.stdout.split('\n')).toEqual([
      `task ${meta.id}: stopped → failed`,
      `Abandoned task ${meta.id}: the progress in its checkpoint is given up (it can no longer be resumed); the checkpoint is kept for inspection: ${checkpoint}`,
      `Delete the task with: orange task delete ${meta.id}`,
    ]);
    expect((await box.task(meta.id)).meta).toMatchObject({ status: 'failed', stop_reason: '' });
    expect((await box.history(meta.id)).filter((e) => e.type === 'status.changed').map((e) => `${String(e.to)}:${String(e.reason)}`)).toEqual(['stopped:cancelled', 'failed:abandoned']);
    const again = await box.jsonError(['task', 'cancel', meta.id, '--yes']);
    expect(again.error).toMatch(/failed is terminal/);
    await box.json(['task', 'delete', meta.id, '--yes']);
  });
});
