import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, useTestGitIdentity } from '@orange/test-support';
import { poolSandbox, type PoolSandbox } from '../test/git-sandbox.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the package so the bundle resolves @orange/core, execa and zod from the workspace's node_modules.
const script = join(packageDir, '.race', `race-spawn-${process.pid}.mjs`);

let s: PoolSandbox;

beforeAll(async () => {
  useTestGitIdentity();
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
  it('never hands one worktree to two tasks when 6 processes, all let go at once, race for a pool of 2', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { task } = await s.orange.engine.createTask({ project: 'demo', summary: `racer ${i}`, spawn: false });
      ids.push(task.meta.id);
    }
    const racers = ids.map((id) => execa('node', [script, s.home, 'demo', id]));
    let outcomes: { id: string; started: boolean; workspace?: string; code?: string; message?: string; began: number; ended: number }[];
    try {
      // Each has loaded Orange and waits for its go: the race is the spawns', not the start-ups'.
      await Promise.all(racers.map((racer, n) => readyLine(racer, `racer ${n}`)));
      for (const racer of racers) racer.stdin?.end('go\n');
      outcomes = (await Promise.all(racers)).map((r) => JSON.parse(r.stdout.split('\n').at(-1) ?? '') as (typeof outcomes)[number]);
    } finally {
      for (const racer of racers) racer.kill('SIGKILL');
    }

    // Every spawn began before the first one ended: all six were in flight together.
    const timeline = outcomes.map((o) => `${o.id} ${o.started ? 'started' : 'vetoed'}: ${o.began.toFixed(1)} → ${o.ended.toFixed(1)}`).join('\n');
    expect(Math.max(...outcomes.map((o) => o.began)), timeline).toBeLessThan(Math.min(...outcomes.map((o) => o.ended)));
    const started = outcomes.filter((o) => o.started);
    expect(started).toHaveLength(2);
    expect(new Set(started.map((o) => o.workspace)).size).toBe(2);
    for (const o of outcomes.filter((o) => !o.started)) {
      expect(o.code, o.message).toBe('E_VETOED');
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

/** Resolves once `racer` printed "ready"; rejects, with what it printed, if it ends or takes 30 s first. */
function readyLine(racer: ReturnType<typeof execa>, name: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} printed no "ready" within 30 s: ${out}`)), 30_000);
    racer.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.startsWith('ready\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
    racer.then(
      (r) => reject(new Error(`${name} ended before it was ready: ${r.stdout}${r.stderr}`)),
      (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
    ).finally(() => clearTimeout(timer));
  });
}

describe('creating worktrees outside the pool lock', () => {
  /** A git that logs when each `worktree add` starts and ends, takes `ms` over it, or fails it. */
  async function slowGit(dir: string, ms: number, fail: boolean): Promise<{ bin: string; log: string }> {
    const log = join(dir, 'adds.log');
    const bin = join(dir, 'slow-git.mjs');
    await writeFile(
      bin,
      [
        '#!/usr/bin/env node',
        "import { spawnSync } from 'node:child_process';",
        "import { appendFileSync } from 'node:fs';",
        'const args = process.argv.slice(2);',
        "const adding = args.includes('worktree') && args[args.indexOf('worktree') + 1] === 'add';",
        `if (adding) appendFileSync(${JSON.stringify(log)}, 'start ' + Date.now() + '\\n');`,
        `if (adding) await new Promise((r) => setTimeout(r, ${ms}));`,
        `if (adding && ${fail}) { process.stderr.write('fatal: no room\\n'); process.exit(128); }`,
        "const run = spawnSync('git', args, { stdio: 'inherit' });",
        `if (adding) appendFileSync(${JSON.stringify(log)}, 'end ' + Date.now() + '\\n');`,
        'process.exit(run.status ?? 1);',
        '',
      ].join('\n'),
    );
    await chmod(bin, 0o755);
    return { bin, log };
  }

  it('creates two new worktrees at once: a slow git worktree add holds up no other task', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-slow-git-'));
    const git = await slowGit(dir, 1500, false);
    const pool = await poolSandbox({ poolSize: 2, plugin: { gitBin: git.bin } });
    try {
      const tasks = await Promise.all([0, 1].map((i) => pool.orange.engine.createTask({ project: 'demo', summary: `task ${i}`, spawn: false })));
      await Promise.all(tasks.map(({ task }) => pool.orange.engine.transition(task.meta, 'planning', { cause: 'spawn' })));
      const lines = (await readFile(git.log, 'utf8')).trim().split('\n');
      const starts = lines.filter((l) => l.startsWith('start')).map((l) => Number(l.split(' ')[1]));
      const ends = lines.filter((l) => l.startsWith('end')).map((l) => Number(l.split(' ')[1]));
      expect(starts, lines.join('\n')).toHaveLength(2);
      // The second add began before the first ended: they ran side by side, not one after the other.
      expect(Math.max(...starts), lines.join('\n')).toBeLessThan(Math.min(...ends));
      const held = (await pool.orange.slot('workspaces').list('demo')).map((w) => w.task).sort();
      expect(held).toEqual(tasks.map(({ task }) => task.meta.id).sort());
    } finally {
      await pool.cleanup();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('undoes the reservation when git cannot create the worktree: the task stays queued and the pool lists nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-failing-git-'));
    const git = await slowGit(dir, 0, true);
    const pool = await poolSandbox({ poolSize: 2, plugin: { gitBin: git.bin } });
    try {
      const { task } = await pool.orange.engine.createTask({ project: 'demo', summary: 'no room', spawn: false });
      await expect(pool.orange.engine.transition(task.meta, 'planning', { cause: 'spawn' })).rejects.toThrow(/no room/);
      expect((await pool.orange.store.read('demo', task.meta.id)).meta.status).toBe('pending');
      expect(await pool.orange.slot('workspaces').list('demo')).toEqual([]);
    } finally {
      await pool.cleanup();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
