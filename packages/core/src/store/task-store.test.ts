import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';

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
