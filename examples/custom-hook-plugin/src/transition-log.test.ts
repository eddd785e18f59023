import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../test/sandbox.js';
import { transitionLog, type TransitionLogLine } from './transition-log.js';

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

async function lines(file: string): Promise<TransitionLogLine[]> {
  const text = await readFile(file, 'utf8');
  return text.trim().split('\n').map((line) => JSON.parse(line) as TransitionLogLine);
}

describe('transitionLog', () => {
  it('appends one line per transition, with the cause, through a whole lifecycle', async () => {
    box = await sandbox({ plugins: [transitionLog({ file: 'log/transitions.jsonl' })] });
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'add a button' });
    const ref = { project: 'demo', id: task.meta.id };
    await box.edit(ref, 'Plan', 'APPROACH: add it\nTOUCHING: ui.ts');
    await box.orange.engine.transition(ref, 'working');
    await box.edit(ref, 'Handoff', 'DONE: added the button');
    await box.orange.engine.transition(ref, 'agent-review');

    // A relative file lands under ORANGE_HOME, wherever the CLI was run from.
    const logged = await lines(join(box.home, 'log/transitions.jsonl'));
    expect(logged.map(({ event, task: id, project, from, to, cause }) => ({ event, id, project, from, to, cause }))).toEqual([
      { event: 'transition', id: ref.id, project: 'demo', from: 'pending', to: 'planning', cause: 'spawn' },
      { event: 'transition', id: ref.id, project: 'demo', from: 'planning', to: 'working', cause: 'request' },
      { event: 'transition', id: ref.id, project: 'demo', from: 'working', to: 'agent-review', cause: 'request' },
    ]);
    expect(Number.isNaN(Date.parse(logged[0]?.time ?? ''))).toBe(false);
  });

  it('logs an exit-monitor advance twice: the auto.advanced reason, then the transition', async () => {
    const file = 'auto.jsonl';
    box = await sandbox({ plugins: [transitionLog({ file })] });
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'x', status: 'agent-review' });
    const ref = { project: 'demo', id: task.meta.id };
    await box.edit(ref, 'Review', 'Verdict: PASS\nLooks right.');
    // The reviewer's process ends without asking for a transition; its exit report arrives.
    const outcome = await box.orange.engine.agentExited(ref, 'reviewer', 'r1', 'exit');
    expect(outcome.task.meta.status).toBe('reviewing');

    const logged = await lines(join(box.home, file));
    expect(logged.map((l) => [l.event, l.from, l.to, l.cause ?? l.reason])).toEqual([
      ['auto.advanced', 'agent-review', 'reviewing', 'reviewer exited; gate review-pass passed'],
      ['transition', 'agent-review', 'reviewing', 'auto'],
    ]);
  });

  it('records a failed action with its name and error, and the transition still counts', async () => {
    box = await sandbox({ plugins: [transitionLog({ file: 'failures.jsonl' })] }, { failing: ['spawn_agent'] });
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'x' });
    expect(task.meta.status).toBe('planning');
    expect(task.meta.attention).toBe('hook failed: spawn_agent');

    const logged = await lines(join(box.home, 'failures.jsonl'));
    expect(logged).toMatchObject([
      { event: 'hook.failed', task: task.meta.id, status: 'planning', action: 'spawn_agent', error: 'spawn_agent broke on purpose' },
      { event: 'transition', from: 'pending', to: 'planning', cause: 'spawn' },
    ]);
  });

  it('writes nothing for a refused transition', async () => {
    box = await sandbox({ plugins: [transitionLog({ file: 'refused.jsonl' })] });
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'x' });
    const ref = { project: 'demo', id: task.meta.id };
    await expect(box.orange.engine.transition(ref, 'working')).rejects.toMatchObject({ code: 'E_GATE_FAILED' });
    expect(await lines(join(box.home, 'refused.jsonl'))).toHaveLength(1);
  });

  it('refuses a bad option, naming the plugin and the field', () => {
    expect(() => transitionLog({ file: '' })).toThrow(/plugin transition-log: option "file"/);
    expect(() => transitionLog({ file: 'x', colour: 'red' } as never)).toThrowError(expect.objectContaining({ code: 'E_PLUGIN_OPTIONS' }));
  });
});
