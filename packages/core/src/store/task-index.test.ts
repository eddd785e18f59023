import { appendFile, lstat, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TaskMeta } from '../task/task.js';
import { OrangePaths } from './paths.js';
import { newTaskMeta } from './task-file.js';
import { TaskIndex, type IndexEntry } from './task-index.js';

const A = 'AaaaaaaaaaaaaaaaaaaaA';
const B = 'BbbbbbbbbbbbbbbbbbbbB';
/** Well outside the racy window: an entry computed from files this old is trusted. */
const OLD = new Date(Date.now() - 3_600_000);
/**
 * Inside the racy window however slow the machine: a file changed "now" is only inside it for two
 * seconds, a file stamped an hour ahead stays inside it for the whole test.
 */
const AHEAD = new Date(Date.now() + 3_600_000);

let dir: string;
let paths: OrangePaths;
let index: TaskIndex;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-task-index-'));
  paths = new OrangePaths(dir);
  index = new TaskIndex(paths);
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const T = '2026-01-01T00:00:00.000Z';
const metaOf = (id: string): TaskMeta => newTaskMeta({ id, project: 'demo', branch: `orange-tasks/${id}`, status: 'planning', created_at: T, updated_at: T });

type TaskFileName = 'state' | 'task' | 'history';

/** Writes the named files of a task and stamps them with `time`. */
async function lay(id: string, names: readonly TaskFileName[], time: Date = OLD): Promise<void> {
  const files = paths.taskFiles('demo', id);
  for (const name of names) {
    await mkdir(dirname(files[name]), { recursive: true });
    await writeFile(files[name], `${name} of ${id}\n`);
    await utimes(files[name], time, time);
  }
}

/** A `compute` that records which tasks it was asked for and answers with `answer`. */
function counting(answer: (id: string) => IndexEntry = (id) => ({ meta: metaOf(id), tampered: [] })) {
  const calls: string[] = [];
  return {
    calls,
    compute: async (id: string): Promise<IndexEntry> => {
      calls.push(id);
      return answer(id);
    },
  };
}

const indexFile = () => paths.taskIndexFile('demo');
const storedIds = async () => Object.keys((JSON.parse(await readFile(indexFile(), 'utf8')) as { entries: object }).entries);

describe('TaskIndex.entries', () => {
  it('serves a task whose files did not change from the index, without computing it again', async () => {
    await lay(A, ['state', 'task']);
    const first = counting((id) => ({ meta: metaOf(id), tampered: ['status'] }));
    const listed = await index.entries('demo', [A], first.compute);
    expect(first.calls).toEqual([A]);

    const second = counting();
    const again = await index.entries('demo', [A], second.compute);
    expect(second.calls).toEqual([]);
    expect(again).toEqual(listed);
    expect(again.get(A)).toEqual({ meta: metaOf(A), tampered: ['status'] });
  });

  it('leaves the index file alone when every entry was served from it', async () => {
    await lay(A, ['state', 'task']);
    await index.entries('demo', [A], counting().compute);
    const written = await lstat(indexFile());
    await index.entries('demo', [A], counting().compute);
    const after = await lstat(indexFile());
    expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: written.ino, mtimeMs: written.mtimeMs });
  });

  it('keeps an unreadable task’s error word for word, without reading the task again', async () => {
    await lay(A, ['state', 'task']);
    const error = 'task AaaaaaaaaaaaaaaaaaaaA: TASK.md is unreadable: it is a FIFO';
    await index.entries('demo', [A], counting(() => ({ error })).compute);
    const second = counting();
    expect((await index.entries('demo', [A], second.compute)).get(A)).toEqual({ error });
    expect(second.calls).toEqual([]);
  });

  it('reads an entry stored without a tampered list as untampered, and one with neither fields nor error as unreadable', async () => {
    await lay(A, ['state', 'task']);
    await lay(B, ['state', 'task']);
    await index.entries('demo', [A, B], counting().compute);
    // As an index written by another version might hold them.
    const stored = JSON.parse(await readFile(indexFile(), 'utf8')) as { v: 1; entries: Record<string, Record<string, unknown>> };
    delete stored.entries[A]?.tampered;
    delete stored.entries[B]?.meta;
    await writeFile(indexFile(), JSON.stringify(stored));

    const second = counting();
    const entries = await index.entries('demo', [A, B], second.compute);
    expect(second.calls).toEqual([]);
    expect(entries.get(A)).toEqual({ meta: metaOf(A), tampered: [] });
    expect(entries.get(B)).toEqual({ error: 'unreadable' });
  });

  it('leaves a task that is gone out of the result and out of the index', async () => {
    await lay(A, ['state', 'task']);
    await lay(B, ['state', 'task']);
    const first = counting((id) => (id === B ? { gone: true } : { meta: metaOf(id), tampered: [] }));
    const entries = await index.entries('demo', [A, B], first.compute);
    expect([...entries.keys()]).toEqual([A]);
    expect(await storedIds()).toEqual([A]);
  });

  it('drops a task no longer listed from the index, even when every other entry is served from it', async () => {
    await lay(A, ['state', 'task']);
    await lay(B, ['state', 'task']);
    await index.entries('demo', [A, B], counting().compute);
    expect(await storedIds()).toEqual([A, B]);
    const second = counting();
    await index.entries('demo', [A], second.compute);
    expect(second.calls).toEqual([]);
    expect(await storedIds()).toEqual([A]);
  });

  it('computes again an entry whose fields name another task', async () => {
    await lay(A, ['state', 'task']);
    // Such an entry is what a task folder copied or renamed under another id would leave.
    await index.entries('demo', [A], counting(() => ({ meta: metaOf(B), tampered: [] })).compute);
    const second = counting();
    expect((await index.entries('demo', [A], second.compute)).get(A)).toEqual({ meta: metaOf(A), tampered: [] });
    expect(second.calls).toEqual([A]);
  });

  it('does not trust an entry computed while a file was within two seconds of its last change', async () => {
    // TASK.md is old, the state file "just written": its mtime tick may still take another write.
    await lay(A, ['task']);
    await lay(A, ['state'], AHEAD);
    await index.entries('demo', [A], counting().compute);
    const second = counting();
    await index.entries('demo', [A], second.compute);
    expect(second.calls).toEqual([A]);
  });

  it('does not trust an entry whose files changed while it was computed, even when they change back', async () => {
    await lay(A, ['state']);
    const during = counting();
    // TASK.md appears (with an old time) while the entry is computed…
    await index.entries('demo', [A], async (id) => {
      const entry = await during.compute(id);
      await lay(A, ['task']);
      return entry;
    });
    expect(during.calls).toEqual([A]);
    // …and is gone again: the files look as they did before the entry was computed.
    await rm(paths.taskFiles('demo', A).task);
    const after = counting();
    await index.entries('demo', [A], after.compute);
    expect(after.calls).toEqual([A]);
  });

  it('without a state file, keys the entry on the history too: a ledger append computes it again', async () => {
    await lay(A, ['task', 'history']);
    await index.entries('demo', [A], counting().compute);
    const unchanged = counting();
    await index.entries('demo', [A], unchanged.compute);
    expect(unchanged.calls).toEqual([]);

    const history = paths.taskFiles('demo', A).history;
    await appendFile(history, 'one more line\n');
    await utimes(history, OLD, OLD);
    const appended = counting();
    await index.entries('demo', [A], appended.compute);
    expect(appended.calls).toEqual([A]);
  });

  it('with a state file, ignores the history: a ledger append is served from the index', async () => {
    await lay(A, ['state', 'task', 'history']);
    await index.entries('demo', [A], counting().compute);
    const history = paths.taskFiles('demo', A).history;
    await appendFile(history, 'one more line\n');
    await utimes(history, OLD, OLD);
    const second = counting();
    await index.entries('demo', [A], second.compute);
    expect(second.calls).toEqual([]);
  });

  it.each([
    ['of another version', (entries: unknown) => ({ v: 2, entries })],
    ['without entries', () => ({ v: 1, entries: null })],
    ['that is not JSON', () => '{"v": 1, "entries": {'],
  ])('rebuilds an index %s from the task files', async (_, content) => {
    await lay(A, ['state', 'task']);
    await index.entries('demo', [A], counting().compute);
    const stored = JSON.parse(await readFile(indexFile(), 'utf8')) as { entries: unknown };
    const odd = content(stored.entries);
    await writeFile(indexFile(), typeof odd === 'string' ? odd : JSON.stringify(odd));

    const second = counting();
    expect((await index.entries('demo', [A], second.compute)).get(A)).toEqual({ meta: metaOf(A), tampered: [] });
    expect(second.calls).toEqual([A]);
    expect(JSON.parse(await readFile(indexFile(), 'utf8'))).toMatchObject({ v: 1, entries: { [A]: { meta: { id: A } } } });
  });
});
