import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { newTaskMeta } from './task-file.js';
import { newTaskId } from './names.js';
import { TaskStore } from './task-store.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => box?.cleanup());

const file = (id: string) => box.orange.paths.taskFile('demo', id);

/** Rewrites one front matter line of TASK.md, as `sed -i` would. */
async function editLine(id: string, field: string, value: string): Promise<void> {
  const text = await readFile(file(id), 'utf8');
  const edited = text.replace(new RegExp(`^${field}: .*$`, 'm'), `${field}: ${value}`);
  expect(edited).not.toBe(text);
  await writeFile(file(id), edited);
}

describe('engine-owned fields in TASK.md', () => {
  it.each([
    ['branch', 'release'],
    ['workspace', '/tmp/elsewhere'],
    ['review_round', '5'],
    ['worker_spawn', 'forged1234'],
    ['tmux_session', 'other/session'],
    ['crash_count', '1'],
  ])('a hand-edited %s is refused on every write as E_TAMPERED, naming the field, and repair restores it', async (field, value) => {
    const ref = await taskIn(box, 'planning', { body: '## Plan\n\nAPPROACH: a\n' });
    const before = await box.orange.store.read(ref.project, ref.id);
    await editLine(ref.id, field, value);
    const error = await errorOf(box.orange.engine.transition(ref, 'working'));
    expect(error.code).toBe('E_TAMPERED');
    expect(error.details.fields).toEqual([field]);
    expect(error.message).toContain(`run: orange task repair ${ref.id}`);
    await expect(box.orange.engine.edit(ref, { summary: 'x' })).rejects.toMatchObject({ code: 'E_TAMPERED' });
    // Readers see the value of record, never the forged one.
    expect((await box.orange.store.read(ref.project, ref.id)).meta).toEqual(before.meta);
    const repaired = await box.orange.engine.repair(ref);
    expect(repaired).toMatchObject({ repaired: true, fields: [field] });
    await expect(box.orange.engine.transition(ref, 'working')).resolves.toMatchObject({ to: 'working' });
  });

  it('a hand-edited summary (a free field) is taken as an edit, not tampering', async () => {
    const ref = await taskIn(box, 'planning');
    await editLine(ref.id, 'summary', 'edited by the agent');
    expect((await box.orange.engine.readVerified(ref)).meta.summary).toBe('edited by the agent');
    const { tasks } = await box.orange.store.list('demo');
    expect(tasks.find((t) => t.meta.id === ref.id)).toMatchObject({ meta: { summary: 'edited by the agent' }, tampered: [] });
  });

  it('an editor saving the front matter it read before a status change does not undo the change', async () => {
    const ref = await taskIn(box, 'planning', { body: '## Plan\n\nAPPROACH: a\n' });
    const read = await readFile(file(ref.id), 'utf8');
    await box.orange.engine.transition(ref, 'working');
    await writeFile(file(ref.id), `${read}\n## Notes\n\nstill planning\n`);
    const task = await box.orange.engine.readVerified(ref);
    expect(task.meta.status).toBe('working');
    expect(task.body).toContain('still planning');
  });

  it('a TASK.md naming another task is refused on read', async () => {
    const a = await taskIn(box, 'planning');
    const b = await taskIn(box, 'planning');
    await editLine(a.id, 'id', b.id);
    const error = await errorOf(box.orange.store.read('demo', a.id));
    expect(error).toMatchObject({ code: 'E_TAMPERED' });
    expect((await box.orange.store.list('demo')).tasks.filter((t) => t.meta.id === b.id)).toHaveLength(1);
  });
});

describe('odd files', () => {
  it('reports a FIFO, a directory and a link out of the task folder as unreadable without hanging', async () => {
    const fifo = await taskIn(box, 'planning');
    const dir = await taskIn(box, 'planning');
    const link = await taskIn(box, 'planning');
    for (const ref of [fifo, dir, link]) {
      await rm(box.orange.paths.taskStateFile('demo', ref.id));
      await rm(file(ref.id));
    }
    execFileSync('mkfifo', [file(fifo.id)]);
    await mkdir(file(dir.id));
    await symlink('/dev/zero', file(link.id));
    const started = Date.now();
    const { unreadable } = await box.orange.store.list('demo');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(Object.fromEntries(unreadable.map((u) => [u.id, u.error]))).toEqual({
      [fifo.id]: expect.stringContaining('a FIFO'),
      [dir.id]: expect.stringContaining('a directory'),
      [link.id]: expect.stringContaining('symlink that leads outside'),
    });
    await expect(box.orange.store.read('demo', fifo.id)).rejects.toMatchObject({ code: 'E_UNREADABLE' });
  });

  it('refuses a TASK.md over 8 MB unread', async () => {
    const ref = await taskIn(box, 'planning');
    await rm(box.orange.paths.taskStateFile('demo', ref.id));
    await writeFile(file(ref.id), `---\nid: ${ref.id}\n---\n${'x'.repeat(9 * 1024 * 1024)}`);
    await expect(box.orange.store.read('demo', ref.id)).rejects.toMatchObject({ code: 'E_UNREADABLE', message: expect.stringContaining('larger than 8 MB') });
  });

  it('skips stray files under tasks/ and in a project folder', async () => {
    const ref = await taskIn(box, 'planning');
    await writeFile(join(box.orange.paths.tasksDir, 'stray'), 'x');
    await writeFile(join(box.orange.paths.projectTasksDir('demo'), 'notes.txt'), 'x');
    const all = await box.orange.store.list();
    expect(all).toMatchObject({ tasks: [expect.objectContaining({ meta: expect.objectContaining({ id: ref.id }) })], unreadable: [] });
  });

  it('removes temp files left by killed writers on the next write, and keeps a live writer\'s', async () => {
    const ref = await taskIn(box, 'planning');
    const dir = box.orange.paths.agentDir('demo', ref.id);
    await writeFile(join(dir, '.TASK.md.999999.deadbeef.tmp'), 'torn');
    await writeFile(join(dir, `.TASK.md.${process.pid}.cafebabe.tmp`), 'ours');
    await box.orange.store.patch('demo', ref.id, { summary: 'next' });
    const left = (await readdir(dir)).filter((n) => n.endsWith('.tmp'));
    expect(left).toEqual([`.TASK.md.${process.pid}.cafebabe.tmp`]);
  });
});

describe('a TASK.md written by hand', () => {
  it('takes the documented defaults for a missing branch, created_at and updated_at', async () => {
    const ref = await taskIn(box, 'planning');
    await rm(box.orange.paths.taskStateFile('demo', ref.id));
    await writeFile(file(ref.id), `---\nid: ${ref.id}\nproject: demo\nstatus: planning\n---\n\nbody\n`);
    // The file's mtime, to the millisecond (its fraction dropped, as Date does).
    const mtime = new Date((await stat(file(ref.id))).mtimeMs).toISOString();
    const task = await box.orange.store.read('demo', ref.id);
    expect(task.meta).toMatchObject({ branch: `orange-tasks/${ref.id}`, created_at: mtime, updated_at: mtime, review_round: 0 });
    expect(task.body).toBe('body\n');
  });
});

describe('front matter lines deleted by hand', () => {
  it('takes the values of record for a deleted created_at and updated_at: not tampered, nothing invented', async () => {
    const ref = await taskIn(box, 'planning');
    const before = (await box.orange.store.read(ref.project, ref.id)).meta;
    const text = await readFile(file(ref.id), 'utf8');
    await writeFile(file(ref.id), text.replace(/^created_at: .*\n/m, '').replace(/^updated_at: .*\n/m, ''));
    const inspected = await box.orange.store.inspect(ref.project, ref.id);
    expect(inspected.tampered).toEqual([]);
    expect(inspected.task.meta).toMatchObject({ created_at: before.created_at, updated_at: before.updated_at });
    await expect(box.orange.engine.edit(ref, { summary: 'still writable' })).resolves.toMatchObject({ changed: ['summary'] });
  });
});

describe('the listing index', () => {
  it('follows hand edits, removed tasks and a corrupt index file', async () => {
    const a = await taskIn(box, 'planning');
    const b = await taskIn(box, 'planning');
    const summaries = async () => Object.fromEntries((await box.orange.store.list('demo')).tasks.map((t) => [t.meta.id, t.meta.summary]));
    expect(await summaries()).toEqual({ [a.id]: 'a task in planning', [b.id]: 'a task in planning' });
    await editLine(a.id, 'summary', 'changed by hand');
    expect((await summaries())[a.id]).toBe('changed by hand');
    await box.orange.store.remove('demo', b.id);
    expect(Object.keys(await summaries())).toEqual([a.id]);
    await writeFile(box.orange.paths.taskIndexFile('demo'), '{"v":1,"entries":{"x":');
    expect(await summaries()).toEqual({ [a.id]: 'changed by hand' });
    // A forged entry for a task whose files it does not describe is never served.
    await writeFile(box.orange.paths.taskIndexFile('demo'), JSON.stringify({ v: 1, entries: { [a.id]: { k: 'x', meta: { id: a.id, summary: 'forged' } } } }));
    expect((await summaries())[a.id]).toBe('changed by hand');
  });

  it('lists every task when the index file is missing, and writes it again', async () => {
    const a = await taskIn(box, 'planning');
    const b = await taskIn(box, 'working');
    const index = box.orange.paths.taskIndexFile('demo');
    expect(existsSync(index)).toBe(false);
    const statuses = async () => Object.fromEntries((await box.orange.store.list('demo')).tasks.map((t) => [t.meta.id, t.meta.status]));
    expect(await statuses()).toEqual({ [a.id]: 'planning', [b.id]: 'working' });
    expect(existsSync(index)).toBe(true);
    await rm(index);
    await editLine(a.id, 'summary', 'edited while there was no index');
    expect(await statuses()).toEqual({ [a.id]: 'planning', [b.id]: 'working' });
    expect((await box.orange.store.list('demo')).tasks.find((t) => t.meta.id === a.id)?.meta.summary).toBe('edited while there was no index');
    expect(Object.keys((JSON.parse(await readFile(index, 'utf8')) as { entries: object }).entries).sort()).toEqual([a.id, b.id].sort());
  });

  it('flags a hand-edited status as tampered, also when the listing is served from the index', async () => {
    const ref = await taskIn(box, 'planning');
    await editLine(ref.id, 'status', 'done');
    const listed = async () => (await box.orange.store.list('demo')).tasks.find((t) => t.meta.id === ref.id);
    expect(await listed()).toEqual({ meta: expect.objectContaining({ status: 'planning' }), tampered: ['status'] });
    // Files old enough for the entry to be trusted: the next listing caches it with its key.
    await ageTaskFiles(ref.id);
    await box.orange.store.list('demo');
    const index = box.orange.paths.taskIndexFile('demo');
    const stored = JSON.parse(await readFile(index, 'utf8')) as { v: 1; entries: Record<string, { k: string | null; meta: { summary: string }; tampered: string[] }> };
    const entry = stored.entries[ref.id]!;
    expect(entry).toMatchObject({ k: expect.any(String), tampered: ['status'] });
    // A marker in the cached entry (its key unchanged) shows the next listing comes from the index.
    entry.meta.summary = 'served from the index';
    await writeFile(index, JSON.stringify(stored));
    expect(await listed()).toEqual({ meta: expect.objectContaining({ status: 'planning', summary: 'served from the index' }), tampered: ['status'] });
  });

  it('sees a hand edit that keeps size, inode and mtime when the entry was computed within the same mtime window (racy)', async () => {
    const ref = await taskIn(box, 'planning');
    // TASK.md edited by hand once, so its listing is read from the file itself.
    await editLine(ref.id, 'summary', 'first hand edit');
    const listedSummary = async () => (await box.orange.store.list('demo')).tasks.find((t) => t.meta.id === ref.id)?.meta.summary;
    expect(await listedSummary()).toBe('first hand edit');
    // A second edit in place, of the same size, landing in the same mtime tick: the files' key is
    // unchanged, so only the racy rule (an entry computed so soon after a write is not trusted) sees it.
    await editInPlaceKeepingMtime(ref.id, 'summary', 'other hand edit');
    expect(await listedSummary()).toBe('other hand edit');
  });

  it('sees an edit in place of the same size whose old mtime was put back (touch -r) on an entry it trusted', async () => {
    const ref = await taskIn(box, 'planning');
    await editLine(ref.id, 'summary', 'first hand edit');
    await ageTaskFiles(ref.id);
    const listedSummary = async () => (await box.orange.store.list('demo')).tasks.find((t) => t.meta.id === ref.id)?.meta.summary;
    // Old enough files: this listing's entry is trusted from now on, for as long as its key holds.
    expect(await listedSummary()).toBe('first hand edit');
    const { atime, mtime } = statSync(file(ref.id));
    const text = await readFile(file(ref.id), 'utf8');
    await writeFile(file(ref.id), text.replace('summary: first hand edit', 'summary: other hand edit'));
    await utimes(file(ref.id), atime, mtime);
    expect(Math.round(statSync(file(ref.id)).mtimeMs)).toBe(mtime.getTime());
    expect(await listedSummary()).toBe('other hand edit');
  });
});

/** Sets a task's files' times 10 s back, as if the last write were long past. */
async function ageTaskFiles(id: string): Promise<void> {
  const files = box.orange.paths.taskFiles('demo', id);
  const past = new Date(Date.now() - 10_000);
  for (const path of [files.task, files.state, files.history]) await utimes(path, past, past);
}

/**
 * Rewrites one front matter line of TASK.md in place (same inode) with a value of the same length,
 * then puts the file's mtime back to the nanosecond: what a second save within one mtime tick looks like.
 */
async function editInPlaceKeepingMtime(id: string, field: string, value: string): Promise<void> {
  const before = statSync(file(id), { bigint: true });
  const text = await readFile(file(id), 'utf8');
  const edited = text.replace(new RegExp(`^${field}: .*$`, 'm'), `${field}: ${value}`);
  expect(Buffer.byteLength(edited)).toBe(Buffer.byteLength(text));
  await writeFile(file(id), edited);
  const ns = before.mtimeNs;
  execFileSync('touch', ['-m', '-d', `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`, file(id)]);
  const after = statSync(file(id), { bigint: true });
  expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
}

describe('reading a task', () => {
  // Orange makes its store without options: a reader waits 1.5 s for an editor that emptied TASK.md.
  it('waits 1.5 s by default for an emptied TASK.md to be written again, then reports it', async () => {
    const ref = await taskIn(box, 'planning');
    await writeFile(file(ref.id), '');
    const store = new TaskStore(box.orange.paths);
    const started = Date.now();
    const error = await errorOf(store.read('demo', ref.id));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(error.code).toBe('E_FRONTMATTER');
  }, 20_000);

  // A monitor reads tasks all day: a descriptor left open per read would run it out of them.
  it.runIf(process.platform === 'linux')('closes TASK.md after reading it', async () => {
    const ref = await taskIn(box, 'planning');
    await box.orange.store.read('demo', ref.id);
    const opened = readdirSync('/proc/self/fd').map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return null;
      }
    });
    expect(opened).not.toContain(realpathSync(file(ref.id)));
  });
});

describe('finding a task by id', () => {
  it('finds a task in whichever project holds it', async () => {
    const ref = await taskIn(box, 'planning');
    await mkdir(box.orange.paths.projectTasksDir('other'), { recursive: true });
    await expect(box.orange.store.locate(ref.id)).resolves.toEqual({ project: 'demo', id: ref.id });
    expect((await box.orange.store.find(ref.id)).meta).toMatchObject({ id: ref.id, project: 'demo', summary: 'a task in planning' });
  });

  it('refuses an id no project holds, also when a project has a file of that name', async () => {
    await taskIn(box, 'planning');
    await mkdir(box.orange.paths.projectTasksDir('other'), { recursive: true });
    const id = newTaskId();
    await writeFile(join(box.orange.paths.projectTasksDir('demo'), id), 'not a task');
    await expect(box.orange.store.locate(id)).rejects.toMatchObject({ code: 'E_TASK_NOT_FOUND', message: `no task with id ${id}` });
    await expect(box.orange.store.find(id)).rejects.toMatchObject({ code: 'E_TASK_NOT_FOUND' });
  });
});

describe('writing a task', () => {
  it('records a task created held as held in its first history event, and no held field otherwise', async () => {
    const held = newTaskMeta({ id: newTaskId(), project: 'demo', branch: 'held-branch', status: 'planning', summary: 'held' });
    const free = newTaskMeta({ id: newTaskId(), project: 'demo', branch: 'free-branch', status: 'planning', summary: 'free' });
    await box.orange.store.create({ meta: held, body: '' }, { held: true });
    await box.orange.store.create({ meta: free, body: '' });
    const [createdHeld] = await box.orange.store.history('demo', held.id);
    const [createdFree] = await box.orange.store.history('demo', free.id);
    expect(createdHeld).toEqual({ type: 'task.created', status: 'planning', branch: 'held-branch', held: true, timestamp: expect.any(String) });
    expect(createdFree).toEqual({ type: 'task.created', status: 'planning', branch: 'free-branch', timestamp: expect.any(String) });
  });

  it('write puts these exact fields and body on disk, stamping updated_at', async () => {
    const ref = await taskIn(box, 'planning', { body: 'old body\n' });
    const task = await box.orange.store.read('demo', ref.id);
    const written = await box.orange.store.withTaskLock('demo', ref.id, () =>
      box.orange.store.write({ meta: { ...task.meta, summary: 'rewritten', updated_at: '2000-01-01T00:00:00.000Z' }, body: 'new body\n' }),
    );
    expect(written.meta.summary).toBe('rewritten');
    expect(written.meta.updated_at).not.toBe('2000-01-01T00:00:00.000Z');
    const read = await box.orange.store.read('demo', ref.id);
    expect(read).toEqual(written);
    expect(read.body).toBe('new body\n');
  });

  it('removing a task that is not there is not an error', async () => {
    await expect(box.orange.store.remove('demo', newTaskId())).resolves.toBeUndefined();
  });
});

describe('restore', () => {
  it('renders a hand-edited sealed field back from the state, keeping the body and the status', async () => {
    const ref = await taskIn(box, 'planning', { body: 'kept\n' });
    await editLine(ref.id, 'branch', 'release');
    const restored = await box.orange.store.withTaskLock('demo', ref.id, () => box.orange.store.restore('demo', ref.id));
    expect(restored.meta).toMatchObject({ branch: `orange-tasks/${ref.id}`, status: 'planning' });
    expect(await readFile(file(ref.id), 'utf8')).toContain(`branch: orange-tasks/${ref.id}\n`);
    const inspected = await box.orange.store.inspect('demo', ref.id);
    expect(inspected.tampered).toEqual([]);
    expect(inspected.task.meta.status).toBe('planning');
    expect(inspected.task.body).toBe('kept\n');
  });

  it('writes the status it is given (the ledger\'s)', async () => {
    const ref = await taskIn(box, 'planning');
    const restored = await box.orange.store.withTaskLock('demo', ref.id, () => box.orange.store.restore('demo', ref.id, 'working'));
    expect(restored.meta).toMatchObject({ id: ref.id, project: 'demo', status: 'working', summary: 'a task in planning' });
    expect((await box.orange.store.read('demo', ref.id)).meta.status).toBe('working');
  });

  it('puts back a TASK.md that names another task (which a read refuses)', async () => {
    const a = await taskIn(box, 'planning');
    const b = await taskIn(box, 'planning');
    await editLine(a.id, 'id', b.id);
    await expect(box.orange.store.read('demo', a.id)).rejects.toMatchObject({ code: 'E_TAMPERED' });
    const restored = await box.orange.store.withTaskLock('demo', a.id, () => box.orange.store.restore('demo', a.id));
    expect(restored.meta.id).toBe(a.id);
    expect((await box.orange.store.read('demo', a.id)).meta.id).toBe(a.id);
  });
});

describe('setAsideUnreadableState', () => {
  it('leaves a readable state, or a task without one, where it is', async () => {
    const ref = await taskIn(box, 'planning');
    expect(await box.orange.store.setAsideUnreadableState('demo', ref.id)).toBeNull();
    expect(existsSync(box.orange.paths.taskStateFile('demo', ref.id))).toBe(true);
    await rm(box.orange.paths.taskStateFile('demo', ref.id));
    expect(await box.orange.store.setAsideUnreadableState('demo', ref.id)).toBeNull();
  });

  it('moves an unreadable state aside under a name with the time (no ":" or ".") and the task reads from TASK.md', async () => {
    const ref = await taskIn(box, 'planning');
    const state = box.orange.paths.taskStateFile('demo', ref.id);
    await writeFile(state, '{ not json');
    const aside = await box.orange.store.setAsideUnreadableState('demo', ref.id);
    expect(aside?.slice(0, state.length)).toBe(state);
    expect(aside?.slice(state.length)).toMatch(/^\.unreadable-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(await readFile(aside ?? '', 'utf8')).toBe('{ not json');
    expect(existsSync(state)).toBe(false);
    expect((await box.orange.store.read('demo', ref.id)).meta).toMatchObject({ id: ref.id, status: 'planning' });
  });
});

describe('task locks', () => {
  it('says the task lock is held only inside withTaskLock, nested locks included', async () => {
    const a = await taskIn(box, 'planning');
    const b = await taskIn(box, 'planning');
    const store = box.orange.store;
    expect(store.holdsTaskLock('demo', a.id)).toBe(false);
    await store.withTaskLock('demo', a.id, async () => {
      expect(store.holdsTaskLock('demo', a.id)).toBe(true);
      expect(store.holdsTaskLock('demo', b.id)).toBe(false);
      await store.withTaskLock('demo', b.id, async () => {
        expect([store.holdsTaskLock('demo', a.id), store.holdsTaskLock('demo', b.id)]).toEqual([true, true]);
      });
    });
    expect(store.holdsTaskLock('demo', a.id)).toBe(false);
  });

  it('inside withoutLockWaits a busy task lock fails at once with E_LOCKED; outside it is waited for', async () => {
    const ref = await taskIn(box, 'planning');
    const store = box.orange.store;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holder = store.withTaskLock('demo', ref.id, async () => {
      entered();
      await released;
    });
    await inside;
    // Were it waited for, this would wait for a holder that lets go only after it (the test times out).
    const error = await errorOf(store.withoutLockWaits(() => store.withTaskLock('demo', ref.id, async () => 'ran')));
    expect(error).toMatchObject({ code: 'E_LOCKED', message: `task ${ref.id} is busy (locked by another orange process); try again` });
    const waiting = store.withTaskLock('demo', ref.id, async () => 'waited');
    release();
    await holder;
    await expect(waiting).resolves.toBe('waited');
  });

  it('holds the project lock (tasks/<project>/.create.lock) while withProjectLock runs, and returns what it returns', async () => {
    const lock = join(box.orange.paths.projectTasksDir('demo'), '.create.lock');
    const value = await box.orange.store.withProjectLock('demo', async () => {
      expect(existsSync(lock)).toBe(true);
      return 42;
    });
    expect(value).toBe(42);
    expect(existsSync(lock)).toBe(false);
  });
});

describe('listing odd task folders', () => {
  it('lists a task listed as written with no forged fields', async () => {
    const ref = await taskIn(box, 'planning');
    const { tasks } = await box.orange.store.list('demo');
    expect(tasks).toEqual([{ meta: await box.orange.store.read('demo', ref.id).then((t) => t.meta), tampered: [] }]);
  });

  it('does not list an empty task folder (a create that got no further), not even as unreadable, on any listing', async () => {
    const ref = await taskIn(box, 'planning');
    await mkdir(box.orange.paths.taskDir('demo', newTaskId()));
    for (let i = 0; i < 2; i++) {
      const { tasks, unreadable } = await box.orange.store.list('demo');
      expect(tasks.map((t) => t.meta.id)).toEqual([ref.id]);
      expect(unreadable).toEqual([]);
    }
  });

  it('lists a TASK.md at its old place that names another task as this task, with id forged', async () => {
    const a = await taskIn(box, 'planning');
    const b = await taskIn(box, 'planning');
    const text = await readFile(file(a.id), 'utf8');
    await writeFile(box.orange.paths.legacyTaskFile('demo', a.id), text.replace(`id: ${a.id}`, `id: ${b.id}`));
    await rm(file(a.id));
    const { tasks, unreadable } = await box.orange.store.list('demo');
    expect(unreadable).toEqual([]);
    expect(tasks.find((t) => t.meta.id === a.id)?.tampered).toContain('id');
  });

  it('lists no copy of a task kept under a folder that is not a task id or not a project name', async () => {
    const ref = await taskIn(box, 'planning');
    const dir = box.orange.paths.taskDir('demo', ref.id);
    await cp(dir, join(box.orange.paths.projectTasksDir('demo'), `${ref.id}.bak`), { recursive: true });
    await cp(dir, join(box.orange.paths.tasksDir, '.trash', ref.id), { recursive: true });
    const { tasks, unreadable } = await box.orange.store.list();
    expect(tasks.map((t) => t.meta.id)).toEqual([ref.id]);
    expect(unreadable).toEqual([]);
  });

  it('skips a stray file named like a task id', async () => {
    const ref = await taskIn(box, 'planning');
    await writeFile(join(box.orange.paths.projectTasksDir('demo'), newTaskId()), 'x');
    const { tasks, unreadable } = await box.orange.store.list('demo');
    expect(tasks.map((t) => t.meta.id)).toEqual([ref.id]);
    expect(unreadable).toEqual([]);
  });

  it('takes a project whose folder is a file as empty', async () => {
    await mkdir(box.orange.paths.tasksDir, { recursive: true });
    await writeFile(box.orange.paths.projectTasksDir('other'), 'x');
    await expect(box.orange.store.list('other')).resolves.toEqual({ tasks: [], unreadable: [] });
  });

  it('reports a project folder that cannot be read instead of taking it as empty', async () => {
    await mkdir(box.orange.paths.tasksDir, { recursive: true });
    await symlink('loop', box.orange.paths.projectTasksDir('loop'));
    await expect(box.orange.store.list('loop')).rejects.toMatchObject({ code: 'ELOOP' });
  });
});
