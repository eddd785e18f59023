import { defaultWorkflow, newTaskMeta, Workflow, type ListedTask, type Orange, type TaskMeta } from '@orange/core';
import { describe, expect, it, vi } from 'vitest';
import { TaskFeed } from './task-feed.js';

const A = 'A'.repeat(21);
const B = 'B'.repeat(21);
const workflow = Workflow.load(defaultWorkflow);

/** Task A as of second `s` of the day, in `status`. */
const version = (id: string, status: string, s: number): TaskMeta =>
  newTaskMeta({ id, project: 'app', branch: `b-${id.slice(0, 1)}`, status, summary: '', updated_at: `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z` });

/** A read that resolves when the test says so. */
interface Held<T> {
  readonly value: T;
  release(): void;
  readonly promise: Promise<T>;
}

function held<T>(value: T): Held<T> {
  let release!: () => void;
  const promise = new Promise<T>((resolve) => (release = () => resolve(value)));
  return { value, release, promise };
}

/**
 * The store as the feed sees it, with reads that resolve in the order the test releases them:
 * each `inspect` / `list` call takes the next queued answer.
 */
class OutOfOrderStore {
  readonly inspects: Array<Held<TaskMeta>> = [];
  readonly lists: Array<Held<TaskMeta[]>> = [];
  calls = 0;

  inspect = async (_project: string, _id: string) => {
    const next = this.inspects[this.calls++];
    if (!next) throw new Error('no answer queued for inspect');
    const meta = await next.promise;
    return { task: { meta, body: '' }, tampered: [] };
  };

  list = async () => {
    const next = this.lists.shift();
    if (!next) throw new Error('no answer queued for list');
    const metas = await next.promise;
    return { tasks: metas.map((meta): ListedTask => ({ meta, tampered: [] })), unreadable: [] };
  };
}

function feedOn(store: unknown, options: ConstructorParameters<typeof TaskFeed>[1] = {}): TaskFeed {
  // Only what the feed reads without a runtime, workspaces or SCM (no plugin is loaded).
  const orange = {
    store,
    maybeSlot: () => undefined,
    workflowFor: async () => workflow,
    engine: { targets: (w: Workflow, status: string) => [...new Set(w.from(status).map((t) => t.to))] },
  } as unknown as Orange;
  return new TaskFeed(orange, options);
}

const statusOf = (feed: TaskFeed, id: string) => feed.snapshot().rows.get(id)?.meta.status;
/** One turn of the event loop: every read already answered has landed (the stand-in store answers without I/O). */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the task feed, with reads that resolve out of order', () => {
  it('never lets an earlier re-read land after a later one', async () => {
    const store = new OutOfOrderStore();
    const feed = feedOn(store);
    // Two writes within one millisecond: only the order of the reads tells them apart.
    const older = held(version(A, 'working', 1));
    const newer = held(version(A, 'agent-review', 1));
    store.inspects.push(older, newer);
    const first = feed.refreshTask('app', A);
    await tick();
    const second = feed.refreshTask('app', A);
    // The later read is answered first; the earlier one only afterwards.
    newer.release();
    await tick();
    older.release();
    await Promise.all([first, second]);
    expect(statusOf(feed, A)).toBe('agent-review');
  });

  it('never lets a listing taken before a re-read replace its row', async () => {
    const store = new OutOfOrderStore();
    const feed = feedOn(store);
    const listing = held([version(A, 'working', 1), version(B, 'pending', 1)]);
    store.lists.push(listing);
    store.inspects.push(held(version(A, 'agent-review', 2)));
    const reload = feed.reload();
    await tick();
    const refresh = feed.refreshTask('app', A);
    store.inspects[0]?.release();
    await tick();
    listing.release();
    await Promise.all([reload, refresh]);
    expect(statusOf(feed, A)).toBe('agent-review');
    expect(statusOf(feed, B)).toBe('pending');
  });

  it('keeps the row written later when a read answers with an older version (a lagging index)', async () => {
    const store = new OutOfOrderStore();
    const feed = feedOn(store);
    const current = held(version(A, 'reviewing', 5));
    current.release();
    store.inspects.push(current);
    await feed.refreshTask('app', A);
    const lagging = held([version(A, 'working', 3)]);
    lagging.release();
    store.lists.push(lagging);
    await feed.reload();
    expect(statusOf(feed, A)).toBe('reviewing');
    // An equal or later version replaces it.
    const later = held([version(A, 'done', 6)]);
    later.release();
    store.lists.push(later);
    await feed.reload();
    expect(statusOf(feed, A)).toBe('done');
  });
});

describe('the task feed and hand edits', () => {
  /** A store whose reads say the task was edited by hand while `tampered` is set. */
  function storeWith(state: { tampered: string[]; reads?: number }) {
    const meta = version(A, 'working', 1);
    return {
      inspect: async () => {
        state.reads = (state.reads ?? 0) + 1;
        return { task: { meta, body: '' }, tampered: state.tampered.map((field) => ({ field })) };
      },
      list: async () => ({ tasks: [{ meta, tampered: state.tampered }], unreadable: [] }),
    };
  }
  const tampered = (feed: TaskFeed) => feed.snapshot().rows.get(A)?.tampered ?? null;

  it('never shows ⚠ for a read between the two writes of a move: the next read agrees again', async () => {
    const state = { tampered: ['status'], reads: 0 };
    const feed = feedOn(storeWith(state), { tamperConfirmMs: 100 });
    await feed.refreshTask('app', A);
    expect(tampered(feed)).toEqual([]);
    state.tampered = [];
    // The second read, tamperConfirmMs later, and what it found on screen.
    await vi.waitFor(() => expect(state.reads, 'the confirming read').toBe(2), { timeout: 2000, interval: 10 });
    await tick();
    expect(tampered(feed)).toEqual([]);
    feed.stop();
  });

  it('shows ⚠ once a second read, a moment later, still finds the hand edit', async () => {
    const state = { tampered: ['status'] };
    const feed = feedOn(storeWith(state), { tamperConfirmMs: 100 });
    await feed.refreshTask('app', A);
    expect(tampered(feed)).toEqual([]);
    await vi.waitFor(() => expect(tampered(feed)).toEqual(['status']), { timeout: 2000, interval: 20 });
    feed.stop();
  });
});

describe('the task feed and worktrees', () => {
  it('reads a task\'s diff stat again when a file changes in its worktree, not on a timer', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const worktree = await mkdtemp(join(tmpdir(), 'orange-feed-wt-'));
    try {
      const meta = { ...version(A, 'working', 1), workspace: worktree };
      let reads = 0;
      const orange = {
        store: { list: async () => ({ tasks: [{ meta, tampered: [] }], unreadable: [] }), inspect: async () => ({ task: { meta, body: '' }, tampered: [] }) },
        paths: { tasksDir: join(worktree, '..', `tasks-${process.pid}`), projectTasksDir: () => join(worktree, '..', `tasks-${process.pid}`, 'app'), taskDir: () => worktree },
        maybeSlot: (name: string) => (name === 'workspaces' ? { diffStat: async () => ({ ahead: 0, added: ++reads, removed: 0, files: [] }) } : undefined),
        workflowFor: async () => workflow,
        engine: { targets: (w: Workflow, status: string) => [...new Set(w.from(status).map((t) => t.to))] },
      } as unknown as Orange;
      // The timer's pass is an hour away: only the watcher can bring a new figure.
      const feed = new TaskFeed(orange, { diffMs: 3_600_000, worktreeDebounceMs: 50, livenessMs: 3_600_000 });
      await feed.start();
      await vi.waitFor(() => expect(feed.snapshot().rows.get(A)?.diff?.added).toBe(1), { timeout: 3000, interval: 20 });
      // chokidar sees changes only once its first scan of the worktree is done, and says so to no
      // one outside: the file is written again at each check until a read follows one.
      let edits = 0;
      await vi.waitFor(
        async () => {
          await writeFile(join(worktree, 'changed.txt'), `edit ${++edits}\n`);
          expect(feed.snapshot().rows.get(A)?.diff?.added, `a read after ${edits} edits`).toBeGreaterThanOrEqual(2);
        },
        { timeout: 5000, interval: 100 },
      );
      await feed.stop();
    } finally {
      await rm(worktree, { recursive: true, force: true });
      await rm(join(worktree, '..', `tasks-${process.pid}`), { recursive: true, force: true });
    }
  });
});
