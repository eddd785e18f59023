// Helpers shared by the bench/*.bench.mjs files (run.mjs loads only *.bench.mjs, so this is not run).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A git identity for sandbox repositories (CI machines may have none configured). */
export const GIT = { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b.invalid', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b.invalid' };

/** The middle value (the upper one of an even count), as the other benches compute it. */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The p-quantile (0 < p < 1) by nearest rank, e.g. pct(xs, 0.95). */
export const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/**
 * A project for a bench run in `dir`: a bare `origin.git` and its clone `repo` on `main` with one
 * commit, pushed. Returns the clone's path. `env` is the bench's (its git identity, its home).
 */
export async function benchRepo(dir, env, readme = 'bench\n') {
  const { execa } = await import('execa');
  const { writeFile } = await import('node:fs/promises');
  const git = (cwd, ...args) => execa('git', args, { cwd, env });
  const repo = join(dir, 'repo');
  await git(dir, 'init', '-q', '--bare', '-b', 'main', 'origin.git');
  await git(dir, 'clone', '-q', 'origin.git', 'repo');
  await writeFile(join(repo, 'README.md'), readme);
  await git(repo, 'checkout', '-q', '-b', 'main');
  await git(repo, 'add', '.');
  await git(repo, 'commit', '-q', '-m', 'init');
  await git(repo, 'push', '-q', '-u', 'origin', 'main');
  return repo;
}

/** Runs `fn(dir)` with a fresh temp directory named `orange-bench-<name>-…`, removed afterwards. */
export async function withTempDir(name, fn) {
  const dir = await mkdtemp(join(tmpdir(), `orange-bench-${name}-`));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Prints figures as one table: FIGURE, VALUE, GOAL and whether the goal is met. A row is
 * `{ figure, value, goal = '—', met = null }`; `met` is true, false or null (no goal).
 */
export function printTable(rows) {
  const cells = rows.map((r) => [r.figure, r.value, r.goal ?? '—', r.met === true ? 'met' : r.met === false ? 'NOT MET' : '']);
  const head = ['FIGURE', 'VALUE', 'GOAL', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => c.map((x, i) => x.padEnd(widths[i])).join('  ').trimEnd();
  console.log(line(head));
  for (const c of cells) console.log(line(c));
}

/** The statuses seeded tasks cycle through (a realistic mix of active and finished). */
export const SEED_STATUSES = ['pending', 'planning', 'working', 'agent-review', 'reviewing', 'done', 'cancelled'];

/** Creates `count` tasks of `project` through TaskStore.create, 50 at a time; `body(n)` is task n's TASK.md body. */
export async function seedTasks(paths, project, count, body = (n) => `## Context\n\nSeeded task ${n}.\n`) {
  const { TaskStore, newTaskId, newTaskMeta } = await import('@orange/core');
  const store = new TaskStore(paths);
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, k) => {
        const n = i + k;
        const meta = newTaskMeta({ id: newTaskId(), project, branch: `bench/${n}`, status: SEED_STATUSES[n % SEED_STATUSES.length], summary: `bench task ${n}` });
        return store.create({ meta, body: body(n) });
      }),
    );
  }
}

/** Runs a program to its end; never rejects (`code` 1 on any failure), output kept. */
export function runProgram(file, args, options = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout: String(stdout), stderr: String(stderr) }));
  });
}
