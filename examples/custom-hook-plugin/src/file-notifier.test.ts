import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../test/sandbox.js';
import { fileNotifier } from './file-notifier.js';

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.orange.notifications.settle();
  await box?.cleanup();
  box = undefined;
});

describe('fileNotifier', () => {
  it('appends one line per notification routed to it: a task that needs a human, then one that is done', async () => {
    box = await sandbox({ plugins: [fileNotifier({ file: 'out/notes.log' })], notifications: { routes: { urgent: ['file'], info: ['file'] } } });
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'add a button' });
    const ref = { project: 'demo', id: task.meta.id };
    await box.edit(ref, 'Plan', 'APPROACH: add it\nTOUCHING: ui.ts');
    await box.orange.engine.transition(ref, 'working');
    await box.orange.engine.transition(ref, 'stuck');
    await box.orange.engine.transition(ref, 'cancelled');
    await box.orange.notifications.settle();
    const lines = (await readFile(join(box.home, 'out/notes.log'), 'utf8')).trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^\\S+ \\[urgent\\] Stuck: add a button — orange task attach ${ref.id}$`)),
      expect.stringMatching(new RegExp(`^\\S+ \\[info\\] Cancelled: add a button — orange task attach ${ref.id}$`)),
    ]);
  });

  it('is refused by name in a route when it is not loaded', async () => {
    await expect(sandbox({ notifications: { routes: { urgent: ['file'] } } })).rejects.toThrow('names notifier "file", which no plugin provides');
  });
});
