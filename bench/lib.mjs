// Helpers shared by the bench/*.bench.mjs files (run.mjs loads only *.bench.mjs, so this is not run).
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
