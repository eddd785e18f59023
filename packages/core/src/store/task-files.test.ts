import { closeSync, ftruncateSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { link, lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OrangeError } from '../errors/index.js';
import type { Task, TaskMeta } from '../task/index.js';
import { newTaskId } from './names.js';
import { OrangePaths } from './paths.js';
import { openRegularFile, type OpenedFile } from './regular-file.js';
import { newTaskMeta, parseTaskFile, serializeTask } from './task-file.js';
import { TASK_FILE_MAX_BYTES, TaskFiles, sameFile, type Settled } from './task-files.js';
import { stateAfterRender, type TaskState } from './task-state.js';

const P = 'demo';
let home: string;
let paths: OrangePaths;

beforeEach(async () => {
  home = realpathSync(await mkdtemp(join(tmpdir(), 'orange-task-files-')));
  paths = new OrangePaths(home);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(home, { recursive: true, force: true });
});

/** A TaskFiles whose readers wait `settleMs` for a TASK.md being rewritten. */
const filesWith = (settleMs = 1500) => new TaskFiles(paths, settleMs);

/** Writes a new task as the store creates one: its `agent/` folder, its state and TASK.md. */
async function newTask(setup: { body?: string; meta?: Partial<TaskMeta> } = {}): Promise<{ id: string; path: string; task: Task; state: TaskState }> {
  const id = newTaskId();
  const meta = newTaskMeta({ id, project: P, branch: `orange-tasks/${id}`, status: 'planning', summary: 'first summary', ...setup.meta });
  await mkdir(paths.agentDir(P, id), { recursive: true });
  const task = { meta, body: setup.body ?? 'line a\n' };
  const outcome = await filesWith().render(P, id, null, null, task, null, false);
  return { id, path: paths.taskFile(P, id), task, state: outcome.state };
}

/** A change as the engine makes one: a status, and a line it adds to the body (once, however often it is re-run). */
const working = (current: Task): Task => ({ meta: { ...current.meta, status: 'working' }, body: withLine(current.body, 'orange line') });

function withLine(body: string, line: string): string {
  return body.split('\n').includes(line) ? body : `${body}${line}\n`;
}

const onDisk = (path: string): Task => parseTaskFile(readFileSync(path, 'utf8'), path);

function textOf(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

const open = async (path: string): Promise<OpenedFile> => {
  const file = await openRegularFile(path, { maxBytes: TASK_FILE_MAX_BYTES, within: null, what: path });
  if (file === null) throw new Error(`${path} is missing`);
  return file;
};

const tempsIn = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((name) => name.endsWith('.tmp'));

/** Files this process holds open under `dir` (Linux: /proc/self/fd), deleted ones included. */
function openFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) found.push(target);
    } catch {
      // The listing's own descriptor, closed by now.
    }
  }
  return found;
}

/** The rejection of `promise`, which must be an OrangeError. */
async function rejection(promise: Promise<unknown>): Promise<OrangeError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OrangeError);
  return error as OrangeError;
}

// What an editor does to TASK.md, synchronously, so that it can act in the middle of a write.
/** A save by rename (vim's default, most GUI editors): TASK.md becomes a new inode. */
function saveByRename(path: string, text: string): void {
  writeFileSync(`${path}.editor~`, text);
  renameSync(`${path}.editor~`, path);
}
/** A save into a file the editor holds open (`O_TRUNC` and write): the same inode, whatever name it has now. */
function saveInto(fd: number, text: string): void {
  ftruncateSync(fd, 0);
  writeSync(fd, text, 0);
}

interface VirtualClock {
  /** Moves the clock on, as if that much time had passed. */
  jump(ms: number): void;
  /** Runs `fn` at every read of the clock, before the read returns (after those added before it). */
  onRead(fn: () => void): void;
}

/**
 * Date.now as the code under test sees it: every read moves it on by 2 ms. Its deadlines (settle,
 * linger, watch, patience) then count its own steps, not real time on a loaded machine, and an editor
 * can act at a chosen read: the clock is read at known points of the write protocol (right after
 * the rename, between two looks at a file), so a save lands at the same step on every run.
 */
function virtualClock(): VirtualClock {
  let now = Date.now();
  const hooks: (() => void)[] = [];
  vi.spyOn(Date, 'now').mockImplementation(() => {
    for (const hook of hooks) hook();
    now += 2;
    return now;
  });
  return {
    jump: (ms) => {
      now += ms;
    },
    onRead: (fn) => {
      hooks.push(fn);
    },
  };
}

describe('sameFile', () => {
  const id = { ino: 7, size: 120, mtimeMs: 1_700_000_000_123 };

  it('is true only for the same inode, size and mtime', () => {
    expect(sameFile({ ...id }, id)).toBe(true);
    expect(sameFile(undefined, id)).toBe(false);
    expect(sameFile({ ...id, ino: 8 }, id)).toBe(false);
    expect(sameFile({ ...id, size: 121 }, id)).toBe(false);
    expect(sameFile({ ...id, mtimeMs: id.mtimeMs + 1 }, id)).toBe(false);
  });
});

describe('view', () => {
  const ID = 'AbCdEfGhIjKlMnOpQrStU';
  const OTHER = 'ZyXwVuTsRqPoNmLkJiHgF';
  const fields = (over: Partial<TaskMeta> = {}): TaskMeta =>
    newTaskMeta({ id: ID, project: P, branch: 'feat/x', status: 'planning', summary: 'one', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', ...over });
  const settled = (meta: TaskMeta | null, body = 'body\n'): Settled => ({ file: null, fields: meta, body: meta ? body : '' });
  const view = (state: TaskState | null, s: Settled, options?: { acceptForeign?: boolean }) => filesWith().view(P, ID, state, s, options);

  it('refuses a TASK.md naming another task, saying which field and how to repair it', () => {
    expect(() => view(null, settled(fields({ id: OTHER })))).toThrow(
      expect.objectContaining({
        code: 'E_TAMPERED',
        message: `task ${ID}: TASK.md names ${P}/${OTHER}, not ${P}/${ID} (edited by hand?); run: orange task repair ${ID}`,
        details: { field: 'id' },
      }),
    );
  });

  it('refuses a TASK.md naming another project, naming the project field', () => {
    expect(() => view(null, settled(fields({ project: 'other' })))).toThrow(
      expect.objectContaining({
        code: 'E_TAMPERED',
        message: `task ${ID}: TASK.md names other/${ID}, not ${P}/${ID} (edited by hand?); run: orange task repair ${ID}`,
        details: { field: 'project' },
      }),
    );
  });

  it('with foreign files accepted, reads a task without state as this task and lists what TASK.md names instead', () => {
    expect(view(null, settled(fields({ id: OTHER, project: 'other' })), { acceptForeign: true })).toEqual({
      task: { meta: fields(), body: 'body\n' },
      tampered: [
        { field: 'id', expected: ID, found: OTHER },
        { field: 'project', expected: P, found: 'other' },
      ],
      hasState: false,
    });
    expect(view(null, settled(fields({ id: OTHER })), { acceptForeign: true }).tampered).toEqual([{ field: 'id', expected: ID, found: OTHER }]);
    expect(view(null, settled(fields({ project: 'other' })), { acceptForeign: true }).tampered).toEqual([{ field: 'project', expected: P, found: 'other' }]);
  });

  it('reads a task without state from TASK.md alone, with nothing tampered', () => {
    expect(view(null, settled(fields()))).toEqual({ task: { meta: fields(), body: 'body\n' }, tampered: [], hasState: false });
  });

  it('throws E_TASK_NOT_FOUND for a task with neither state nor TASK.md', () => {
    expect(() => view(null, settled(null))).toThrow(expect.objectContaining({ code: 'E_TASK_NOT_FOUND', message: `no task ${ID} in project ${P}` }));
  });

  it('reads a task whose TASK.md is gone from its state, with an empty body', () => {
    const state = stateAfterRender(null, fields({ status: 'working' }), null);
    expect(view(state, settled(null))).toEqual({ task: { meta: state.meta, body: '' }, tampered: [], hasState: true });
  });

  it('reads a task with state from TASK.md reconciled against it', () => {
    const state = stateAfterRender(null, fields(), null);
    expect(view(state, settled(fields({ summary: 'edited' })))).toEqual({ task: { meta: fields({ summary: 'edited' }), body: 'body\n' }, tampered: [], hasState: true });
  });
});

describe('viewAtOnce', () => {
  it('reads a task from one synchronous look at TASK.md', async () => {
    const { id, task, state } = await newTask({ body: 'line a\n' });
    expect(filesWith().viewAtOnce(P, id, state)).toEqual({ task, tampered: [], hasState: true });
  });

  it('is null for a missing TASK.md and for one that does not parse (inspect then waits or reports)', async () => {
    const { id, path, state } = await newTask();
    await writeFile(path, '---\nid: [\n---\n');
    expect(filesWith().viewAtOnce(P, id, state)).toBeNull();
    await rm(path);
    expect(filesWith().viewAtOnce(P, id, state)).toBeNull();
  });

  it('names the task in the error for a TASK.md that is not a regular file', async () => {
    const { id, path, state } = await newTask();
    await rm(path);
    await mkdir(path);
    expect(() => filesWith().viewAtOnce(P, id, state)).toThrow(
      expect.objectContaining({ code: 'E_UNREADABLE', message: `task ${id}: TASK.md is unreadable: it is a directory` }),
    );
  });

  it('accepts a TASK.md naming another task, marking the field as tampered', async () => {
    const { id, path, state } = await newTask();
    const other = newTaskId();
    await writeFile(path, readFileSync(path, 'utf8').replace(`id: ${id}`, `id: ${other}`));
    const inspection = filesWith().viewAtOnce(P, id, state);
    expect(inspection?.task.meta.id).toBe(id);
    expect(inspection?.tampered).toEqual([{ field: 'id', expected: id, found: other }]);
  });
});

describe('settle', () => {
  it('returns a state without TASK.md as no file, no fields and an empty body', async () => {
    const { id, path, state } = await newTask();
    await rm(path);
    expect(await filesWith().settle(P, id, state)).toEqual({ file: null, fields: null, body: '' });
  });

  it('throws E_TASK_NOT_FOUND for a task with neither state nor TASK.md', async () => {
    const id = newTaskId();
    const error = await rejection(filesWith().settle(P, id, null));
    expect(error).toMatchObject({ code: 'E_TASK_NOT_FOUND', message: `no task ${id} in project ${P}` });
  });

  it('names the task in the error for a TASK.md that is not a regular file', async () => {
    const { id, path, state } = await newTask();
    await rm(path);
    await mkdir(path);
    const error = await rejection(filesWith().settle(P, id, state));
    expect(error).toMatchObject({ code: 'E_UNREADABLE', message: `task ${id}: TASK.md is unreadable: it is a directory` });
  });

  it('leaves the old place alone when TASK.md is found at its own (another process may be moving it)', async () => {
    const { id, path, state } = await newTask();
    const legacy = paths.legacyTaskFile(P, id);
    await link(path, legacy);
    const settled = await filesWith().settle(P, id, state);
    await settled.file?.handle.close();
    expect(settled.fields?.id).toBe(id);
    expect((await lstat(legacy)).isFile()).toBe(true);
  });

  // An editor rewriting TASK.md in place truncates it, then writes it: a reader in between sees
  // one of these. The editor finishes its save at the reader's second look at the clock.
  it.each([
    ['empty', ''],
    ['one dash', '-'],
    ['two dashes', '--'],
    ['the opening line unfinished', '---'],
    ['the opening line', '---\n'],
    ['front matter not closed', '---\nid: x\nproject: demo\n'],
    ['front matter not closed, CRLF', '---\r\nid: x\r\n'],
    ['the closing line unfinished', '---\nid: x\n--'],
  ])('waits for a TASK.md caught half-written (%s) to be whole', async (_, partial) => {
    const { id, path, state } = await newTask();
    const whole = readFileSync(path, 'utf8');
    writeFileSync(path, partial);
    const clock = virtualClock();
    let reads = 0;
    clock.onRead(() => {
      if (++reads === 2) writeFileSync(path, whole);
    });
    const settled = await filesWith(60_000).settle(P, id, state);
    await settled.file?.handle.close();
    expect(settled.fields?.id).toBe(id);
    expect(settled.file?.text).toBe(whole);
  });

  // The same editor as above would fix these files too: they must be refused before it does.
  it.each([
    ['no front matter', 'hello, no front matter\n'],
    ['two characters', 'ab'],
    ['malformed YAML', '---\nid: [\n---\nbody\n'],
    ['malformed YAML, closing line with a trailing blank', '---\nid: [\n--- \nbody\n'],
    ['malformed YAML, closing line at the end of the file', '---\nid: [\n---'],
    ['malformed YAML, CRLF', '---\r\nid: [\r\n---\r\nbody\r\n'],
  ])('refuses a whole but broken TASK.md (%s) at once, as E_FRONTMATTER', async (_, broken) => {
    const { id, path, state } = await newTask();
    const whole = readFileSync(path, 'utf8');
    writeFileSync(path, broken);
    const clock = virtualClock();
    let reads = 0;
    clock.onRead(() => {
      if (++reads === 2) writeFileSync(path, whole);
    });
    const error = await rejection(filesWith(60_000).settle(P, id, state));
    expect(error.code).toBe('E_FRONTMATTER');
    expect(readFileSync(path, 'utf8')).toBe(broken);
  });

  it('gives up on a TASK.md left half-written for longer than settleMs', async () => {
    const { id, path, state } = await newTask();
    const whole = readFileSync(path, 'utf8');
    writeFileSync(path, `---\nid: ${id}\n`);
    const clock = virtualClock();
    let reads = 0;
    // Finished long after the 20 ms (10 reads) the reader waits.
    clock.onRead(() => {
      if (++reads === 40) writeFileSync(path, whole);
    });
    const error = await rejection(filesWith(20).settle(P, id, state));
    expect(error).toMatchObject({ code: 'E_FRONTMATTER', message: `${path} has unterminated front matter (no closing "---" line)` });
  });
});

describe('render', () => {
  it('writes a new task: TASK.md as serialized, and the state that records its identity', async () => {
    const id = newTaskId();
    await mkdir(paths.agentDir(P, id), { recursive: true });
    const task = { meta: newTaskMeta({ id, project: P, branch: `orange-tasks/${id}`, status: 'planning' }), body: 'hello\n' };
    const outcome = await filesWith().render(P, id, null, null, task, null, false);
    const path = paths.taskFile(P, id);
    const written = await stat(path);
    expect(outcome).toEqual({ kind: 'written', state: outcome.state, text: serializeTask(task) });
    expect(readFileSync(path, 'utf8')).toBe(serializeTask(task));
    expect(outcome.state).toMatchObject({ v: 1, meta: task.meta, rendered: { ino: written.ino, size: written.size, mtimeMs: written.mtimeMs } });
    expect(JSON.parse(readFileSync(paths.taskStateFile(P, id), 'utf8'))).toEqual(outcome.state);
    expect(await tempsIn(paths.agentDir(P, id))).toEqual([]);
  });

  it('writes the state on the first round even when the fields did not change, recording the new TASK.md', async () => {
    const { id, path, task, state } = await newTask();
    const read = await open(path);
    try {
      const outcome = await filesWith().render(P, id, state, state, { meta: task.meta, body: 'new body\n' }, read, true);
      const now = await stat(path);
      expect(outcome.kind).toBe('written');
      expect(outcome.state.rendered).toEqual({ ino: now.ino, size: now.size, mtimeMs: now.mtimeMs });
      expect(JSON.parse(readFileSync(paths.taskStateFile(P, id), 'utf8'))).toEqual(outcome.state);
    } finally {
      await read.handle.close();
    }
  });

  it('keeps the state of the first round on a retry with the same fields, and writes it on one with other fields', async () => {
    const { id, path, task, state } = await newTask();
    const next = { meta: { ...task.meta, status: 'working' }, body: 'first\n' };
    let read = await open(path);
    const first = await filesWith().render(P, id, state, state, next, read, true);
    await read.handle.close();
    const recorded = readFileSync(paths.taskStateFile(P, id), 'utf8');

    read = await open(path);
    const same = await filesWith().render(P, id, state, first.state, { meta: next.meta, body: 'second\n' }, read, true);
    await read.handle.close();
    expect(same.state).toBe(first.state);
    expect(readFileSync(paths.taskStateFile(P, id), 'utf8')).toBe(recorded);
    expect(onDisk(path).body).toBe('second\n');

    read = await open(path);
    const other = await filesWith().render(P, id, state, first.state, { meta: { ...next.meta, summary: 'other' }, body: 'third\n' }, read, true);
    await read.handle.close();
    expect(other.state.meta.summary).toBe('other');
    expect(JSON.parse(readFileSync(paths.taskStateFile(P, id), 'utf8'))).toEqual(other.state);
  });

  it("renames nothing over a TASK.md an editor replaced since it was read: 'replaced', its temp file removed", async () => {
    const { id, path, task, state } = await newTask();
    const read = await open(path);
    try {
      const saved = `${read.text}editor line\n`;
      saveByRename(path, saved);
      const next = { meta: { ...task.meta, status: 'working' }, body: 'orange\n' };
      const outcome = await filesWith().render(P, id, state, state, next, read, true);
      expect(outcome).toEqual({ kind: 'replaced', state: expect.objectContaining({ meta: next.meta }) });
      expect(readFileSync(path, 'utf8')).toBe(saved);
      expect(await tempsIn(paths.agentDir(P, id))).toEqual([]);
    } finally {
      await read.handle.close();
    }
  });

  it("reports a TASK.md that appeared while it was missing as 'replaced'", async () => {
    const { id, path, task, state } = await newTask();
    const outcome = await filesWith().render(P, id, state, state, { meta: task.meta, body: 'orange\n' }, null, true);
    expect(outcome.kind).toBe('replaced');
    expect(onDisk(path).body).toBe('line a\n');
  });

  it('renders a missing TASK.md again (nothing was read, nothing to check)', async () => {
    const { id, path, task, state } = await newTask();
    await rm(path);
    const outcome = await filesWith().render(P, id, state, state, { meta: task.meta, body: 'orange\n' }, null, true);
    expect(outcome.kind).toBe('written');
    expect(onDisk(path).body).toBe('orange\n');
  });

  it("renames nothing over a TASK.md written into since it was read: 'edited', unless the check is waived", async () => {
    const { id, path, task, state } = await newTask();
    const read = await open(path);
    try {
      const saved = `${read.text}editor line\n`;
      writeFileSync(path, saved);
      const next = { meta: task.meta, body: 'orange\n' };
      const outcome = await filesWith().render(P, id, state, state, next, read, true);
      expect(outcome).toEqual({ kind: 'edited', state: expect.objectContaining({ meta: next.meta }) });
      expect(readFileSync(path, 'utf8')).toBe(saved);
      expect(await tempsIn(paths.agentDir(P, id))).toEqual([]);

      const forced = await filesWith().render(P, id, state, outcome.state, next, read, false);
      expect(forced.kind).toBe('written');
      expect(onDisk(path).body).toBe('orange\n');
    } finally {
      await read.handle.close();
    }
  });

  it('removes its temp file and leaves TASK.md as it was when the state cannot be written', async () => {
    const { id, path, task, state } = await newTask();
    const before = readFileSync(path, 'utf8');
    await rm(paths.taskStateFile(P, id));
    await mkdir(paths.taskStateFile(P, id));
    await expect(filesWith().render(P, id, state, state, { meta: { ...task.meta, status: 'working' }, body: 'x\n' }, null, false)).rejects.toThrow();
    expect(await tempsIn(paths.agentDir(P, id))).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });
});

describe('restoreState', () => {
  it('puts back the state a write had replaced', async () => {
    const { id, state } = await newTask();
    await writeFile(paths.taskStateFile(P, id), '{"v":1}\n');
    await filesWith().restoreState(P, id, state);
    expect(await filesWith().readState(P, id)).toEqual(state);
  });

  it('removes the state of a task that had none, and is content when there is none', async () => {
    const { id } = await newTask();
    await filesWith().restoreState(P, id, null);
    expect(await filesWith().readState(P, id)).toBeNull();
    await filesWith().restoreState(P, id, null);
    expect(await filesWith().readState(P, id)).toBeNull();
  });
});

describe('watchForSave', () => {
  it('is null when TASK.md stays as written', async () => {
    const { path } = await newTask();
    expect(await filesWith().watchForSave(path, readFileSync(path, 'utf8'))).toBeNull();
  });

  it('returns a save found over what was written, parsed', async () => {
    const { path } = await newTask();
    const written = readFileSync(path, 'utf8');
    saveByRename(path, `${written.replace('summary: first summary', 'summary: saved over')}late line\n`);
    const late = await filesWith().watchForSave(path, written);
    await late?.file?.handle.close();
    expect(late).toMatchObject({ fields: { summary: 'saved over' }, body: 'line a\nlate line\n' });
    expect(late?.file?.text).toBe(readFileSync(path, 'utf8'));
  });

  it('looks again, never failing, at a TASK.md that is missing, not a file, or does not parse, and keeps nothing open', async () => {
    const { id, path } = await newTask();
    const written = readFileSync(path, 'utf8');
    writeFileSync(path, '---\nid: [\n---\n');
    expect(await filesWith().watchForSave(path, written)).toBeNull();
    expect(openFilesUnder(paths.agentDir(P, id))).toEqual([]);
    await rm(path);
    expect(await filesWith().watchForSave(path, written)).toBeNull();
    await mkdir(path);
    expect(await filesWith().watchForSave(path, written)).toBeNull();
  });
});

describe('settledContent', () => {
  /** The task's TASK.md opened as a writer reads it, and a valid rewrite of it with `lines` added to the body. */
  async function opened(): Promise<{ path: string; file: OpenedFile; plus: (...lines: string[]) => string }> {
    const { path } = await newTask();
    const file = await open(path);
    return { path, file, plus: (...lines) => `${file.text}${lines.map((l) => `${l}\n`).join('')}` };
  }

  it('returns the file as read when nobody wrote into it', async () => {
    const { path, file } = await opened();
    try {
      virtualClock();
      expect(await filesWith().settledContent(file, path, 0)).toBe(file.text);
      // Lingered over (an editor is busy), longer than settleMs: still unchanged, not "never parsed".
      expect(await filesWith(20).settledContent(file, path, 100)).toBe(file.text);
    } finally {
      await file.handle.close();
    }
  });

  it('returns a save written into the file once it holds still and parses', async () => {
    const { path, file, plus } = await opened();
    try {
      virtualClock();
      writeFileSync(path, plus('editor line'));
      expect(await filesWith(200).settledContent(file, path, 0)).toBe(plus('editor line'));
    } finally {
      await file.handle.close();
    }
  });

  it('while lingering, takes a save that lands in two writes only once it is whole', async () => {
    const { path, file, plus } = await opened();
    try {
      const clock = virtualClock();
      let reads = 0;
      // The first part lands after the first look at the file, the rest after the next.
      clock.onRead(() => {
        reads++;
        if (reads === 2) writeFileSync(path, plus('editor 1'));
        if (reads === 3) writeFileSync(path, plus('editor 1', 'editor 2'));
      });
      expect(await filesWith(200).settledContent(file, path, 100)).toBe(plus('editor 1', 'editor 2'));
    } finally {
      await file.handle.close();
    }
  });

  it('waits for a save caught half-written to be whole', async () => {
    const { path, file, plus } = await opened();
    try {
      const clock = virtualClock();
      writeFileSync(path, file.text.slice(0, 20));
      let reads = 0;
      clock.onRead(() => {
        if (++reads === 4) writeFileSync(path, plus('editor line'));
      });
      expect(await filesWith(60_000).settledContent(file, path, 0)).toBe(plus('editor line'));
    } finally {
      await file.handle.close();
    }
  });

  it('is null at once for a save that is whole but does not parse', async () => {
    const { path, file, plus } = await opened();
    try {
      const clock = virtualClock();
      writeFileSync(path, 'not a task file at all\n');
      let reads = 0;
      // Fixed later: a reader that waited for it would take the fixed file.
      clock.onRead(() => {
        if (++reads === 20) writeFileSync(path, plus('fixed'));
      });
      expect(await filesWith(60_000).settledContent(file, path, 0)).toBeNull();
    } finally {
      await file.handle.close();
    }
  });

  it('is null for a file that keeps changing for longer than settleMs', async () => {
    const { path, file, plus } = await opened();
    try {
      const clock = virtualClock();
      let reads = 0;
      // A new save at every look for 200 reads (400 ms of the reader's clock; it waits 20).
      clock.onRead(() => {
        if (++reads >= 2 && reads <= 200) writeFileSync(path, plus(`save ${reads}`));
      });
      expect(await filesWith(20).settledContent(file, path, 100)).toBeNull();
    } finally {
      await file.handle.close();
    }
  });
});

describe('change', () => {
  it('writes the state and TASK.md, returns the task stamped once, and keeps no file open', async () => {
    const { id, path } = await newTask({ body: 'line a\n' });
    const task = await filesWith().change(P, id, working);
    expect(task.meta.status).toBe('working');
    expect(task.body).toBe('line a\norange line\n');
    expect(readFileSync(path, 'utf8')).toBe(serializeTask(task));
    expect((await filesWith().readState(P, id))?.meta).toEqual(task.meta);
    expect(openFilesUnder(paths.agentDir(P, id))).toEqual([]);
  });

  it('renders a deleted TASK.md again from the state', async () => {
    const { id, path } = await newTask({ body: 'line a\n' });
    await rm(path);
    const task = await filesWith().change(P, id, working);
    expect(task).toMatchObject({ meta: { status: 'working', summary: 'first summary' }, body: 'orange line\n' });
    expect(onDisk(path)).toEqual(task);
    expect(openFilesUnder(paths.agentDir(P, id))).toEqual([]);
  });

  it('starts again from a TASK.md an editor creates while a deleted one is being rendered', async () => {
    const { id, path, task: created } = await newTask({ body: 'line a\n' });
    await rm(path);
    let calls = 0;
    const task = await filesWith().change(P, id, (current) => {
      if (++calls === 1) saveByRename(path, serializeTask({ meta: created.meta, body: 'recreated\n' }));
      return working(current);
    });
    expect(calls).toBe(2);
    expect(task.body).toBe('recreated\norange line\n');
    expect(onDisk(path).body).toBe('recreated\norange line\n');
  });

  it("makes the change again on top of an editor's save that replaced TASK.md after it was read", async () => {
    const { id, path } = await newTask({ body: 'line a\n' });
    let calls = 0;
    const task = await filesWith().change(P, id, (current) => {
      if (++calls === 1) saveByRename(path, `${readFileSync(path, 'utf8')}editor line\n`);
      return working(current);
    });
    expect(calls).toBe(2);
    expect(task.body).toBe('line a\neditor line\norange line\n');
    expect(onDisk(path)).toEqual(task);
  });

  it("never renames over an editor's save into the file it read: the change is made again on top of it", async () => {
    const { id, path } = await newTask({ body: 'line a\n' });
    const ino = lstatSync(path).ino;
    const inodes: number[] = [];
    const task = await filesWith().change(P, id, (current) => {
      inodes.push(lstatSync(path).ino);
      if (inodes.length === 1) writeFileSync(path, `${readFileSync(path, 'utf8')}editor line\n`);
      return working(current);
    });
    expect(inodes).toEqual([ino, ino]);
    expect(task.body).toBe('line a\neditor line\norange line\n');
    expect(onDisk(path)).toEqual(task);
  });

  it('gives up with E_LOCKED after 15 s of an editor replacing TASK.md before every rename, putting the state back', async () => {
    const { id, path } = await newTask();
    const recorded = readFileSync(paths.taskStateFile(P, id), 'utf8');
    const clock = virtualClock();
    let calls = 0;
    // The editor stops after three saves: a writer that did not give up would then succeed.
    const error = await rejection(
      filesWith().change(P, id, (current) => {
        if (++calls <= 3) {
          saveByRename(path, `${readFileSync(path, 'utf8')}editor ${calls}\n`);
          clock.jump(16_000);
        }
        return working(current);
      }),
    );
    expect(error).toMatchObject({
      code: 'E_LOCKED',
      message: `task ${id}: TASK.md kept changing while it was being written (an editor saving it without pause?); try again`,
    });
    expect(calls).toBe(1);
    expect(readFileSync(paths.taskStateFile(P, id), 'utf8')).toBe(recorded);
    expect(onDisk(path).body).toBe('line a\neditor 1\n');
    expect(await tempsIn(paths.agentDir(P, id))).toEqual([]);
  });

  it('giving up on a task that had no state file leaves it without one', async () => {
    const { id, path } = await newTask();
    await rm(paths.taskStateFile(P, id));
    const clock = virtualClock();
    let calls = 0;
    await expect(
      filesWith().change(P, id, (current) => {
        if (++calls <= 3) {
          saveByRename(path, `${readFileSync(path, 'utf8')}editor ${calls}\n`);
          clock.jump(16_000);
        }
        return working(current);
      }),
    ).rejects.toMatchObject({ code: 'E_LOCKED' });
    expect(await filesWith().readState(P, id)).toBeNull();
  });

  describe('an editor saving into the file it had open, right after the rename', () => {
    /**
     * Opens TASK.md as an editor holds it; `save` runs at the first read of the clock that finds a
     * new TASK.md renamed in (Orange reads it right after its rename), with the old file's fd.
     */
    function editorHolding(path: string, clock: VirtualClock, save: (fd: number, read: string) => void): { close(): void } {
      const fd = openSync(path, 'r+');
      const ino = lstatSync(path).ino;
      const read = readFileSync(path, 'utf8');
      let saved = false;
      clock.onRead(() => {
        if (saved || lstatSync(path, { throwIfNoEntry: false })?.ino === ino) return;
        saved = true;
        save(fd, read);
      });
      return { close: () => closeSync(fd) };
    }

    it('keeps its body edit and its free field edit', async () => {
      const { id, path } = await newTask({ body: 'line a\n' });
      const clock = virtualClock();
      const editor = editorHolding(path, clock, (fd, read) => saveInto(fd, `${read.replace('summary: first summary', 'summary: from the old file')}editor line\n`));
      try {
        const task = await filesWith().change(P, id, working);
        expect(task).toMatchObject({ meta: { status: 'working', summary: 'from the old file' }, body: 'line a\neditor line\norange line\n' });
        expect(onDisk(path)).toEqual(task);
      } finally {
        editor.close();
      }
    });

    it('keeps its edit when it also saved the new TASK.md meanwhile, with the new file’s free fields', async () => {
      const { id, path } = await newTask({ body: 'line a\n' });
      const clock = virtualClock();
      const editor = editorHolding(path, clock, (fd, read) => {
        saveInto(fd, `${read.replace('summary: first summary', 'summary: from the old file')}editor line\n`);
        const renamedIn = readFileSync(path, 'utf8');
        saveByRename(path, `${renamedIn.replace('summary: first summary', 'summary: from the new file')}new file line\n`);
      });
      try {
        const task = await filesWith().change(P, id, working);
        expect(task.meta.summary).toBe('from the new file');
        expect(task.body.split('\n')).toEqual(expect.arrayContaining(['line a', 'editor line', 'orange line', 'new file line']));
        expect(onDisk(path)).toEqual(task);
      } finally {
        editor.close();
      }
    });


    it('keeps its edit when an editor then saves over the new TASK.md a copy read while the edit was missing', async () => {
      const { id, path } = await newTask({ body: 'line a\n' });
      const clock = virtualClock();
      let firstWrite: string | null = null;
      const editor = editorHolding(path, clock, (fd, read) => {
        firstWrite = textOf(path);
        saveInto(fd, `${read}editor line\n`);
      });
      let late = false;
      clock.onRead(() => {
        // The editor's copy is of Orange's first write; it saves it once Orange has put the edit back.
        if (late || firstWrite === null || !textOf(path)?.includes('editor line')) return;
        late = true;
        saveByRename(path, `${firstWrite}late line\n`);
      });
      try {
        const task = await filesWith().change(P, id, working);
        expect(late).toBe(true);
        expect(task.body).toBe('line a\neditor line\norange line\nlate line\n');
        expect(onDisk(path).body).toBe(task.body);
      } finally {
        editor.close();
      }
    });

    it('leaves a later save that kept its edit exactly as the editor saved it', async () => {
      const { id, path } = await newTask({ body: 'line a\n' });
      const clock = virtualClock();
      let firstWrite: string | null = null;
      const editor = editorHolding(path, clock, (fd, read) => {
        firstWrite = textOf(path);
        saveInto(fd, `${read}editor line\n`);
      });
      let saved: string | null = null;
      clock.onRead(() => {
        const now = textOf(path);
        if (saved !== null || firstWrite === null || !now?.includes('editor line')) return;
        // A comment in the front matter: Orange rendering the file again would drop it.
        saved = `${now.replace(/^---\n/, '---\n# kept as the editor saved it\n')}late line\n`;
        saveByRename(path, saved);
      });
      try {
        await filesWith().change(P, id, working);
        expect(saved).not.toBeNull();
        expect(readFileSync(path, 'utf8')).toBe(saved);
      } finally {
        editor.close();
      }
    });

    it('completes from the state when the editor also deleted the new TASK.md, and keeps its edit and a save made after', async () => {
      const { id, path } = await newTask({ body: 'line a\n' });
      const clock = virtualClock();
      let deleted = false;
      const editor = editorHolding(path, clock, (fd, read) => {
        saveInto(fd, `${read}editor line\n`);
        unlinkSync(path);
        deleted = true;
      });
      let late = false;
      clock.onRead(() => {
        // Once Orange has rendered TASK.md again, the editor saves it once more.
        const now = textOf(path);
        if (late || !deleted || now === null) return;
        late = true;
        saveByRename(path, `${now}late line\n`);
      });
      try {
        const task = await filesWith().change(P, id, working);
        expect(late).toBe(true);
        expect(task.meta.status).toBe('working');
        expect(task.body.split('\n')).toEqual(expect.arrayContaining(['line a', 'editor line', 'orange line', 'late line']));
        expect(onDisk(path)).toEqual(task);
      } finally {
        editor.close();
      }
    });

    /**
     * The editor's save into the old file (taken back, so TASK.md is written once more), `later` ms
     * after the write started; then a save into the new TASK.md as the change is made again.
     * Returns the task and whether TASK.md was still that saved file when the change was made a third time.
     */
    async function savedIntoWhileRedoing(later: number): Promise<{ task: Task; stillTheEditorsFile: boolean }> {
      const { id, path } = await newTask({ body: 'line a\n' });
      const clock = virtualClock();
      let renamedIn = 0;
      const editor = editorHolding(path, clock, (fd, read) => {
        renamedIn = lstatSync(path).ino;
        saveInto(fd, `${read}editor line\n`);
        clock.jump(later);
      });
      let calls = 0;
      let stillTheEditorsFile = false;
      try {
        const task = await filesWith().change(P, id, (current) => {
          calls++;
          if (calls === 2) writeFileSync(path, `${readFileSync(path, 'utf8')}inplace line\n`);
          if (calls === 3) stillTheEditorsFile = lstatSync(path).ino === renamedIn;
          return working(current);
        });
        expect(calls).toBe(3);
        expect(task.body).toBe('line a\neditor line\norange line\ninplace line\n');
        expect(onDisk(path)).toEqual(task);
        return { task, stillTheEditorsFile };
      } finally {
        editor.close();
      }
    }

    it('is not given up after 15 s once TASK.md was renamed, and renames nothing over a later save within 30 s', async () => {
      expect((await savedIntoWhileRedoing(16_000)).stillTheEditorsFile).toBe(true);
    });

    it('after 30 s, writes the edit it took back over a newer save (which it then takes back in turn)', async () => {
      expect((await savedIntoWhileRedoing(31_000)).stillTheEditorsFile).toBe(false);
    });
  });

  it('lingers over a TASK.md an editor saved just before, and keeps a save the editor finishes into it after the rename', async () => {
    const { id, path } = await newTask({ body: 'line a\n' });
    writeFileSync(path, `${readFileSync(path, 'utf8')}editor 1\n`);
    const clock = virtualClock();
    const fd = openSync(path, 'r+');
    const ino = lstatSync(path).ino;
    const read = readFileSync(path, 'utf8');
    let afterRename = 0;
    clock.onRead(() => {
      if (lstatSync(path).ino === ino) return;
      // Orange reads the clock after its rename for the busy check, as it starts looking at the old
      // file again, then once after each look: the save lands after its second look, while it lingers.
      if (++afterRename === 4) saveInto(fd, `${read}editor 2\n`);
    });
    try {
      const task = await filesWith().change(P, id, working);
      expect(task.body).toBe('line a\neditor 1\neditor 2\norange line\n');
      expect(onDisk(path)).toEqual(task);
    } finally {
      closeSync(fd);
    }
  });
});
