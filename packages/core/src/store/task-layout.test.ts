import { existsSync } from 'node:fs';
import { link, lstat, mkdir, readdir, readFile, readlink, rename, rmdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { moveLegacyTaskFile } from './task-layout.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => box?.cleanup());

/** Lays a task out as versions before `agent/` did: TASK.md beside state.json, no `agent/` folder. */
async function oldLayout(id: string): Promise<string> {
  const paths = box.orange.paths;
  await rename(paths.taskFile('demo', id), paths.legacyTaskFile('demo', id));
  await rmdir(paths.agentDir('demo', id));
  return paths.legacyTaskFile('demo', id);
}

describe('a task laid out by an older version (TASK.md beside state.json)', () => {
  it('is listed, read and updated, and ends up in agent/ with a link at the old place', async () => {
    const ref = await taskIn(box, 'planning', { body: '## Plan\n\nAPPROACH: a\n' });
    // The listing index of the old version knew TASK.md at the old place.
    await box.orange.store.list('demo');
    const legacy = await oldLayout(ref.id);
    const text = await readFile(legacy, 'utf8');

    const { tasks, unreadable } = await box.orange.store.list('demo');
    expect(unreadable).toEqual([]);
    expect(tasks.map((t) => t.meta.id)).toEqual([ref.id]);
    const moved = box.orange.paths.taskFile('demo', ref.id);
    expect(await readFile(moved, 'utf8')).toBe(text);
    expect((await lstat(legacy)).isSymbolicLink()).toBe(true);
    expect(await readlink(legacy)).toBe(join('agent', 'TASK.md'));

    expect((await box.orange.store.read('demo', ref.id)).body).toContain('APPROACH: a');
    await box.orange.engine.edit(ref, { summary: 'after the upgrade' });
    expect(await readFile(moved, 'utf8')).toMatch(/^summary: after the upgrade$/m);
    // An agent started before the upgrade still reaches the task through the old name.
    expect(await readFile(legacy, 'utf8')).toBe(await readFile(moved, 'utf8'));
    await expect(box.orange.engine.transition(ref, 'working')).resolves.toMatchObject({ to: 'working' });
  });

  it('is moved by a write too, under the task lock, which is outside agent/', async () => {
    const ref = await taskIn(box, 'planning');
    await oldLayout(ref.id);
    await box.orange.store.patch('demo', ref.id, { summary: 'patched' });
    expect(await readFile(box.orange.paths.taskFile('demo', ref.id), 'utf8')).toMatch(/^summary: patched$/m);
    expect((await lstat(box.orange.paths.legacyTaskFile('demo', ref.id))).isSymbolicLink()).toBe(true);
  });

  it('is moved once: a second move, or a move racing another, changes nothing', async () => {
    const ref = await taskIn(box, 'planning');
    await oldLayout(ref.id);
    const moves = await Promise.all([1, 2, 3, 4, 5, 6].map(() => moveLegacyTaskFile(box.orange.paths, 'demo', ref.id)));
    expect(moves).toContain(true);
    expect(await moveLegacyTaskFile(box.orange.paths, 'demo', ref.id)).toBe(false);
    expect((await lstat(box.orange.paths.taskFile('demo', ref.id))).isFile()).toBe(true);
    expect(await readlink(box.orange.paths.legacyTaskFile('demo', ref.id))).toBe(join('agent', 'TASK.md'));
    // A move that found the old name already replaced removes the link it had prepared.
    expect((await readdir(box.orange.paths.taskDir('demo', ref.id))).filter((name) => name.endsWith('.link'))).toEqual([]);
  });

  it('finishes a move another process left half done (TASK.md under both names)', async () => {
    const ref = await taskIn(box, 'planning');
    const legacy = await oldLayout(ref.id);
    const moved = box.orange.paths.taskFile('demo', ref.id);
    const text = await readFile(legacy, 'utf8');
    await mkdir(dirname(moved));
    await link(legacy, moved);
    expect(await moveLegacyTaskFile(box.orange.paths, 'demo', ref.id)).toBe(true);
    expect(await readlink(legacy)).toBe(join('agent', 'TASK.md'));
    expect(await readFile(moved, 'utf8')).toBe(text);
  });

  it('never replaces a TASK.md already in agent/ with the old one', async () => {
    const ref = await taskIn(box, 'planning');
    const legacy = box.orange.paths.legacyTaskFile('demo', ref.id);
    await writeFile(legacy, 'stale\n');
    const current = await readFile(box.orange.paths.taskFile('demo', ref.id), 'utf8');
    // True: TASK.md is at the new place. The old file is left as it is, for a person to look at.
    expect(await moveLegacyTaskFile(box.orange.paths, 'demo', ref.id)).toBe(true);
    expect(await readFile(box.orange.paths.taskFile('demo', ref.id), 'utf8')).toBe(current);
    expect((await lstat(legacy)).isFile()).toBe(true);
    expect(await readFile(legacy, 'utf8')).toBe('stale\n');
  });

  // agent/ leading into /proc (on every Linux) is a place no hard link can be made in. Whatever link's
  // reason (ENOENT there, EXDEV across devices, EROFS on a read-only one), the old file must stay.
  it.runIf(process.platform === 'linux')('refuses a move whose hard link fails, leaving TASK.md where it was', async () => {
    const ref = await taskIn(box, 'planning');
    const legacy = await oldLayout(ref.id);
    const text = await readFile(legacy, 'utf8');
    await symlink('/proc', box.orange.paths.agentDir('demo', ref.id));
    await expect(moveLegacyTaskFile(box.orange.paths, 'demo', ref.id)).rejects.toMatchObject({ syscall: 'link' });
    expect((await lstat(legacy)).isFile()).toBe(true);
    expect(await readFile(legacy, 'utf8')).toBe(text);
  });

  it('a task whose TASK.md is gone from both places reads as it did (state of record, empty body)', async () => {
    const ref = await taskIn(box, 'planning');
    await oldLayout(ref.id);
    await rename(box.orange.paths.legacyTaskFile('demo', ref.id), join(box.home, 'elsewhere'));
    expect(await box.orange.store.read('demo', ref.id)).toMatchObject({ meta: { id: ref.id, status: 'planning' }, body: '' });
    expect(existsSync(box.orange.paths.agentDir('demo', ref.id))).toBe(false);
  });
});

describe('the task lock', () => {
  it('is task.lock/ in the task folder, not in agent/', async () => {
    const ref = await taskIn(box, 'planning');
    await box.orange.store.withTaskLock('demo', ref.id, async () => {
      expect(existsSync(join(box.orange.paths.taskDir('demo', ref.id), 'task.lock'))).toBe(true);
      expect(box.orange.store.holdsTaskLock('demo', ref.id)).toBe(true);
    });
    expect(await readdir(box.orange.paths.agentDir('demo', ref.id))).toEqual(['TASK.md']);
  });
});
