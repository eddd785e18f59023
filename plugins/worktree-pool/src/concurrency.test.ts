import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, poolSandbox, setGitIdentity, type PoolSandbox } from '../test/git-sandbox.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the package so the bundle resolves @orange/core, execa and zod from the workspace's node_modules.
const script = join(packageDir, '.race', `race-spawn-${process.pid}.mjs`);

let s: PoolSandbox;

beforeAll(async () => {
  setGitIdentity();
  await build({
    entryPoints: [join(packageDir, 'test', 'race-spawn.ts')],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@orange/core', 'execa', 'zod'],
    logLevel: 'error',
  });
  s = await poolSandbox({ poolSize: 2 });
});

afterAll(async () => {
  await rm(join(packageDir, '.race'), { recursive: true, force: true });
  await s?.cleanup();
});

describe('concurrent acquires', () => {
  it('never hands one worktree to two tasks when 6 processes race for a pool of 2', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { task } = await s.orange.engine.createTask({ project: 'demo', summary: `racer ${i}`, spawn: false });
      ids.push(task.meta.id);
    }
    const startAt = String(Date.now() + 1500);
    const runs = await Promise.all(ids.map((id) => execa('node', [script, s.home, 'demo', id, startAt])));
    const outcomes = runs.map((r) => JSON.parse(r.stdout) as { id: string; started: boolean; workspace?: string; code?: string; message?: string });

    const started = outcomes.filter((o) => o.started);
    expect(started).toHaveLength(2);
    expect(new Set(started.map((o) => o.workspace)).size).toBe(2);
    for (const o of outcomes.filter((o) => !o.started)) {
      expect(o.code).toBe('E_VETOED');
      expect(o.message).toMatch(/workspace pool for project demo is exhausted \(2 of 2 in use\)/);
    }

    const pool = await s.orange.slot('workspaces').list('demo');
    expect(pool).toHaveLength(2);
    expect(pool.map((w) => w.task).sort()).toEqual(started.map((o) => o.id).sort());
    for (const o of started) {
      const task = await s.orange.store.read('demo', o.id);
      expect(task.meta.status).toBe('planning');
      expect(await git(o.workspace as string, 'symbolic-ref', '--short', 'HEAD')).toBe(task.meta.branch);
    }
    for (const o of outcomes.filter((o) => !o.started)) {
      const task = await s.orange.store.read('demo', o.id);
      expect([task.meta.status, task.meta.workspace]).toEqual(['pending', null]);
    }
  }, 60_000);
});
