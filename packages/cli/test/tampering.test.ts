/**
 * Issue 8 reproductions: a careless or hostile agent edits the engine's fields in its TASK.md with
 * the tools it has (sed, an editor). Nothing it writes there may steer Orange outside its task.
 */
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { join } from 'node:path';
import type { TaskMeta } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ poolSize: 4 });
});
afterAll(() => box?.cleanup());

/** Rewrites one front matter line of a task's TASK.md, as `sed -i` would. */
async function editLine(id: string, field: string, value: string): Promise<void> {
  const file = box.paths.taskFile(box.project, id);
  const text = await readFile(file, 'utf8');
  const edited = text.replace(new RegExp(`^${field}: .*$`, 'm'), `${field}: ${value}`);
  expect(edited).not.toBe(text);
  await writeFile(file, edited);
}

/** A branch pushed to origin that no task owns. */
async function unownedRemoteBranch(branch: string): Promise<void> {
  await box.git(box.repo, 'checkout', '-q', '-b', branch);
  await box.commit(box.repo, `${branch}.md`, `work on ${branch}`);
  await box.git(box.repo, 'push', '-q', 'origin', branch);
  await box.git(box.repo, 'checkout', '-q', 'main');
}

describe('a hand-edited branch', () => {
  it('is refused by merge as tampering: no remote branch deleted, nothing merged, the task unchanged', async () => {
    await unownedRemoteBranch('release');
    const task = await box.createTask(['feat/y', 'review feat/y', '--status', 'reviewing']);
    await editLine(task.id, 'branch', 'release');

    const refused = await box.jsonError(['task', 'merge', task.id, '--yes']);
    expect(refused).toMatchObject({ code: 'E_TAMPERED', exit: 1 });
    expect(refused.error).toContain('branch "release" (of record: "feat/y")');
    expect(await box.git(box.origin, 'branch', '--list', 'release')).toContain('release');
    expect((await box.json<{ task: TaskMeta }>(['task', 'show', task.id])).task).toMatchObject({ status: 'reviewing', branch: 'feat/y' });

    const listed = await box.json<{ flags: Record<string, { tampered: string[] }> }>(['task', 'list']);
    expect(listed.flags[task.id]?.tampered).toEqual(['branch']);
    const human = await box.orange(['task', 'list']);
    expect(human.stdout).toMatch(new RegExp(`${task.id}\\s+reviewing ⚠`));

    const repaired = await box.json<{ repaired: boolean; fields: string[] }>(['task', 'repair', task.id]);
    expect(repaired).toMatchObject({ repaired: true, fields: ['branch'] });
    expect(await readFile(box.paths.taskFile(box.project, task.id), 'utf8')).toMatch(/^branch: feat\/y$/m);
  });

  it('with branch: main, never reaches git', async () => {
    const task = await box.createTask(['feat/z', 'review feat/z', '--status', 'reviewing']);
    await editLine(task.id, 'branch', 'main');
    expect((await box.jsonError(['task', 'merge', task.id, '--yes'])).code).toBe('E_TAMPERED');
    expect(await box.git(box.origin, 'rev-parse', '--verify', 'main')).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('a hand-edited id', () => {
  it('does not let task A drive task B: A is refused, B is untouched, and A is listed once as A', async () => {
    const a = await box.createTask(['feat/a', 'task A', '--no-spawn']);
    const b = await box.createTask(['feat/b', 'task B', '--no-spawn']);
    await editLine(a.id, 'id', b.id);

    const byId = await box.jsonError(['task', 'update', a.id, '--status', 'cancelled']);
    expect(byId).toMatchObject({ code: 'E_TAMPERED' });
    expect(byId.error).toContain(`names ${box.project}/${b.id}`);
    expect((await box.task(b.id)).meta.status).toBe('pending');

    const shown = await box.json<{ task: TaskMeta; tampered: { fields: Array<{ field: string }> } }>(['task', 'show', a.id]);
    expect(shown.task).toMatchObject({ id: a.id, summary: 'task A' });
    expect(shown.tampered.fields.map((f) => f.field)).toContain('id');

    const listed = await box.json<{ tasks: TaskMeta[] }>(['task', 'list']);
    expect(listed.tasks.filter((t) => t.id === b.id)).toHaveLength(1);
    expect(listed.tasks.filter((t) => t.id === a.id)).toHaveLength(1);

    await box.json(['task', 'repair', a.id]);
    await box.json(['task', 'cancel', a.id, '--yes']);
    expect((await box.task(b.id)).meta.status).toBe('pending');
  });
});

describe('odd files under tasks/', () => {
  it('a FIFO named TASK.md, a link to /dev/zero, a directory and stray files never hang or crash a listing', async () => {
    const fifo = await box.createTask(['odd/fifo', 'a fifo', '--no-spawn']);
    const zero = await box.createTask(['odd/zero', 'a device link', '--no-spawn']);
    const dir = await box.createTask(['odd/dir', 'a directory', '--no-spawn']);
    const fine = await box.createTask(['odd/fine', 'a plain task', '--no-spawn']);
    for (const t of [fifo, zero, dir]) await rm(box.paths.taskStateFile(box.project, t.id), { force: true });
    await rm(box.paths.taskFile(box.project, fifo.id));
    execFileSync('mkfifo', [box.paths.taskFile(box.project, fifo.id)]);
    await rm(box.paths.taskFile(box.project, zero.id));
    await symlink('/dev/zero', box.paths.taskFile(box.project, zero.id));
    await rm(box.paths.taskFile(box.project, dir.id));
    await mkdir(box.paths.taskFile(box.project, dir.id));
    await writeFile(join(box.paths.tasksDir, 'stray-file'), 'x');
    await writeFile(join(box.paths.projectTasksDir(box.project), 'notes.txt'), 'x');

    const started = Date.now();
    const listed = await box.orange(['task', 'list', '--all', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    const out = JSON.parse(listed.stdout) as { tasks: TaskMeta[]; unreadable: Array<{ id: string; error: string }> };
    expect(out.tasks.map((t) => t.id)).toContain(fine.id);
    const why = Object.fromEntries(out.unreadable.map((u) => [u.id, u.error]));
    expect(why[fifo.id]).toMatch(/a FIFO/);
    expect(why[zero.id]).toMatch(/symlink that leads outside/);
    expect(why[dir.id]).toMatch(/a directory/);
    const monitor = await box.orange(['monitor', '--once', '--json']);
    expect(monitor.code, monitor.stderr).toBe(0);
    const shown = await box.jsonError(['task', 'show', fifo.id]);
    expect(shown).toMatchObject({ code: 'E_UNREADABLE', exit: 1 });
  });
});

describe('an agent editing TASK.md while orange writes it', () => {
  it('loses none of 400 in-place edits to 12 parallel task update --summary calls, and none of those', async () => {
    const task = await box.createTask(['edits/race', 'race the editor', '--no-spawn']);
    const file = box.paths.taskFile(box.project, task.id);
    // The reproduction: read, append a line, write back in place — as an editor does.
    const editor = execa(process.execPath, [
      '-e',
      `const fs = require('fs');
       const file = process.argv[1];
       (async () => {
         for (let i = 1; i <= 400; i++) {
           const text = fs.readFileSync(file, 'utf8');
           fs.writeFileSync(file, text.endsWith('\\n') ? text + 'edit-' + i + '\\n' : text + '\\nedit-' + i + '\\n');
           await new Promise((r) => setTimeout(r, Math.random() * 6));
         }
       })();`,
      file,
    ]);
    const updates = await Promise.all(Array.from({ length: 12 }, (_, i) => box.orange(['task', 'update', task.id, '--summary', `s${i}`])));
    const edited = await editor;
    expect(edited.exitCode, edited.stderr).toBe(0);
    for (const u of updates) expect(u.code, u.stderr).toBe(0);

    const text = await readFile(file, 'utf8');
    const missing = Array.from({ length: 400 }, (_, i) => `edit-${i + 1}`).filter((line) => !text.split('\n').includes(line));
    expect(missing, `${missing.length} of 400 edits lost`).toEqual([]);
    const history = await box.history(task.id);
    const summaries = history.filter((e) => e.type === 'task.updated');
    expect(summaries).toHaveLength(12);
    const shown = await box.json<{ task: TaskMeta; tampered: unknown }>(['task', 'show', task.id]);
    expect(shown.tampered).toBeNull();
    expect(shown.task.summary).toBe((summaries.at(-1)?.summary as { to: string }).to);
  });
});
