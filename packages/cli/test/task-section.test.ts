/** `orange task section set`: agents write one ## section of TASK.md through the CLI, under the task lock. */
import { readFile, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TaskMeta } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ poolSize: 4 });
});
afterAll(() => box?.cleanup());

describe('orange task section set', () => {
  it('writes ## Plan from --text inside the worktree, which then passes the plan gate, keeping the rest of TASK.md', async () => {
    const meta = await box.startTask('feature/section-text');
    await box.writeSection(meta.id, 'Notes', 'an agent note');
    const cwd = meta.workspace as string;
    const out = await box.json<{ task: TaskMeta; section: string }>(['task', 'section', 'set', 'Plan', '--text', 'APPROACH: one file\nTOUCHING: notes.md'], { cwd });
    expect(out.section).toBe('Plan');
    const task = await box.task(meta.id);
    expect(task.body).toContain('## Notes\n\nan agent note\n');
    expect(task.body).toContain('## Plan\n\nAPPROACH: one file\nTOUCHING: notes.md\n');
    expect((await box.history(meta.id)).at(-1)).toMatchObject({ type: 'section.written', section: 'Plan' });
    await box.json(['task', 'update', '--status', 'working'], { cwd });
  });

  it("finds the task inside a worktree whose TASK.md link names the file's place before agent/ (a task from an older version)", async () => {
    const meta = await box.startTask('feature/section-old-layout');
    const cwd = meta.workspace as string;
    await rename(box.paths.taskFile(box.project, meta.id), box.paths.legacyTaskFile(box.project, meta.id));
    await rmdir(box.paths.agentDir(box.project, meta.id));
    await rm(join(cwd, 'TASK.md'));
    await symlink(box.paths.legacyTaskFile(box.project, meta.id), join(cwd, 'TASK.md'));
    await box.json(['task', 'section', 'set', 'Notes', '--text', 'written from the old layout'], { cwd });
    expect((await box.task(meta.id)).body).toContain('## Notes\n\nwritten from the old layout\n');
    // Moved on that first read; the old name leads to the new file.
    expect(await readFile(join(cwd, 'TASK.md'), 'utf8')).toContain('written from the old layout');
  });

  it('reads the text from standard input with - or --file -, and from a file with --file, replacing the section each time', async () => {
    const meta = await box.startTask('feature/section-stdin');
    const human = await box.orange(['task', 'section', 'set', 'Handoff', '-', '--task', meta.id], { input: 'DONE: from stdin\n' });
    expect(human).toMatchObject({ code: 0, stdout: `task ${meta.id}: ## Handoff written\n`.trimEnd() });
    await box.json(['task', 'section', 'set', 'Plan', '--file', '-', '--task', meta.id], { input: 'APPROACH: from stdin through --file -\n' });
    expect((await box.task(meta.id)).body).toContain('## Plan\n\nAPPROACH: from stdin through --file -\n');
    const file = join(box.dir, 'handoff.md');
    await writeFile(file, 'DONE: from a file\n');
    await box.json(['task', 'section', 'set', 'Handoff', '--file', file, '--task', meta.id]);
    const body = (await box.task(meta.id)).body;
    expect(body.match(/## Handoff/g)).toHaveLength(1);
    expect(body).toContain('## Handoff\n\nDONE: from a file\n');
  });

  it('refuses no text, two texts, a ## name, a text with its own ## heading and a directory, changing nothing', async () => {
    const meta = await box.startTask('feature/section-bad');
    const before = await box.taskText(meta.id);
    const id = ['--task', meta.id];
    expect(await box.jsonError(['task', 'section', 'set', 'Plan', ...id])).toMatchObject({ code: 'E_USAGE', exit: 2 });
    expect(await box.jsonError(['task', 'section', 'set', 'Plan', '--text', 'a', '-', ...id])).toMatchObject({ code: 'E_USAGE', exit: 2 });
    expect(await box.jsonError(['task', 'section', 'set', 'Plan', '--file', '-', '-', ...id], { input: 'APPROACH: x\n' })).toMatchObject({ code: 'E_USAGE', exit: 2 });
    expect(await box.jsonError(['task', 'section', 'set', '## Plan', '--text', 'APPROACH: x', ...id])).toMatchObject({
      code: 'E_INVALID_INPUT',
      error: 'section "## Plan": give the name without the ## (e.g. Handoff)',
    });
    const stray = await box.jsonError(['task', 'section', 'set', 'Handoff', '--text', 'DONE: x\n## Review\nVerdict: PASS', ...id]);
    expect(stray.error).toMatch(/level-2 heading "## Review"/);
    expect(await box.jsonError(['task', 'section', 'set', 'Plan', '--file', box.dir, ...id])).toMatchObject({ code: 'E_INVALID_INPUT', error: `${box.dir} is not a regular file` });
    expect(await box.taskText(meta.id)).toBe(before);
  });

  it('takes a --file of at most 1 MB and refuses a larger one unread, changing nothing', async () => {
    const meta = await box.createTask(['feature/section-size', 'a section from a large file']);
    const id = ['--task', meta.id];
    const file = join(box.dir, 'section-size.md');
    const line = 'APPROACH: a plan long enough to fill the file\n';
    const MB = 1024 * 1024;
    await writeFile(file, line.repeat(Math.ceil(MB / line.length)).slice(0, MB));
    const written = await box.orange(['task', 'section', 'set', 'Plan', '--file', file, ...id]);
    expect(written.code, written.stderr).toBe(0);
    const before = await box.taskText(meta.id);
    await writeFile(file, `${line.repeat(Math.ceil(MB / line.length)).slice(0, MB)}x`);
    expect(await box.jsonError(['task', 'section', 'set', 'Plan', '--file', file, ...id])).toMatchObject({ code: 'E_INVALID_INPUT', error: `${file} is larger than 1 MB` });
    expect(await box.taskText(meta.id)).toBe(before);
  });
});
