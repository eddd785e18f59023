import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultWorkflow, newTaskMeta, OrangePaths, Workflow, type ListedTask, type Orange, type TaskMeta } from '@orange/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TaskFeed } from './task-feed.js';
import { TaskWatcher } from './task-watcher.js';

// The system's answer once `fs.inotify.max_user_watches` is used up (ENOSPC), or the process's
// descriptors are (EMFILE): no test can use up the machine's real limit without starving every
// other process of the user, so `fs.watch` is made to refuse here.
const refuse = vi.hoisted(() => ({ code: 'ENOSPC', calls: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    watch: () => {
      refuse.calls++;
      throw Object.assign(new Error(`${refuse.code}: System limit for number of file watchers reached, watch`), { code: refuse.code });
    },
  };
});

const A = 'A'.repeat(21);
const B = 'B'.repeat(21);
const workflow = Workflow.load(defaultWorkflow);
const meta = (id: string, status: string, s: number): TaskMeta =>
  newTaskMeta({ id, project: 'app', branch: `b-${id.slice(0, 1)}`, status, summary: '', updated_at: `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z` });

let home: string | undefined;
let feed: TaskFeed | undefined;
let watcher: TaskWatcher | undefined;
afterEach(async () => {
  await feed?.stop();
  watcher?.close();
  if (home) await rm(home, { recursive: true, force: true });
  feed = watcher = home = undefined;
  refuse.calls = 0;
});

async function tempPaths(): Promise<OrangePaths> {
  home = await mkdtemp(join(tmpdir(), 'orange-feed-poll-'));
  return new OrangePaths(home);
}

describe('when the system refuses more file watches', () => {
  for (const code of ['ENOSPC', 'EMFILE']) {
    it(`the watcher says so once (${code}), however many folders it could not watch`, async () => {
      refuse.code = code;
      const paths = await tempPaths();
      await mkdir(paths.taskDir('app', A), { recursive: true });
      await mkdir(paths.taskDir('app', B), { recursive: true });
      let overflows = 0;
      watcher = new TaskWatcher(paths, () => undefined, () => overflows++);
      await watcher.start();
      // The tasks folder, the project's, and two folders per task: all refused, one call.
      expect(refuse.calls).toBeGreaterThanOrEqual(6);
      expect(overflows).toBe(1);
    });
  }

  it('the dashboard lists every 2 s instead, so a change still reaches the screen', async () => {
    refuse.code = 'ENOSPC';
    const paths = await tempPaths();
    let current = [meta(A, 'planning', 1)];
    const listedAt: number[] = [];
    const store = {
      list: async () => {
        listedAt.push(Date.now());
        return { tasks: current.map((m): ListedTask => ({ meta: m, tampered: [] })), unreadable: [] };
      },
      inspect: async () => {
        throw new Error('no watch can report a change here: nothing reads one task');
      },
    };
    const orange = {
      store,
      paths,
      maybeSlot: () => undefined,
      workflowFor: async () => workflow,
      engine: { targets: (w: Workflow, status: string) => [...new Set(w.from(status).map((t) => t.to))] },
    } as unknown as Orange;
    feed = new TaskFeed(orange, { livenessMs: 3_600_000, diffMs: 3_600_000 });
    await feed.start();
    expect(feed.snapshot().rows.get(A)?.meta.status).toBe('planning');
    const changedAt = Date.now();
    current = [meta(A, 'working', 2), meta(B, 'pending', 2)];
    await vi.waitFor(
      () => {
        const rows = feed!.snapshot().rows;
        if (rows.get(A)?.meta.status !== 'working' || !rows.has(B)) throw new Error(`the next listing (2 s) to show the change; listings so far at ${listedAt.map((t) => t - changedAt).join(', ')} ms`);
      },
      { timeout: 6_000, interval: 50 },
    );
    // A listing every 2 s, not a busy loop: the gaps after the first screen's two listings.
    await vi.waitFor(() => expect(listedAt.length, 'two listings of the poll').toBeGreaterThanOrEqual(4), { timeout: 6_000, interval: 50 });
    const gaps = listedAt.slice(2).map((t, i) => t - (listedAt[i + 1] as number));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1_900);
  }, 20_000);
});
