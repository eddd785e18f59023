// CLI start-up figures: the wall time of the commands agents run all day, against bare node.
// Agents call `orange task update …` and `orange task show --json` from their worktrees
// constantly, so the goal for agent commands is ≤ 3× a bare `node -e 0`; `orange task list
// --json` over 10,000 tasks (the whole process) has its own goals for wall time and peak RSS.
// Printed, not asserted. The machine is usually shared: every command's runs alternate with
// runs of `node -e 0`, and its ratio is to the median of those, measured in the same stretch.
//
// The accepted transition is the default workflow's clarification ↔ planning pair: no gate, no
// guard and no hooks, so it measures start-up + config + plugins + lock + write + ledger and
// nothing that starts a process; it is timed once with a JSON config and once with a TypeScript
// one (jiti). The refused one is clarification → done (not in the map). The import lines show
// what the packages cost when loaded one file at a time (the CLI loads its bundle instead).
//
// The 10,000 tasks are created through the store's public API (TaskStore.create, 50 at a time),
// so the fixture stays right whatever files the store keeps; that takes a minute or two.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { OrangePaths } from '@orange/core';
import { root, median, printTable, GIT, seedTasks } from './lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.cjs');
const RUNS = 15;
const WARMUPS = 2;
const TASKS = 1000;
const LIST_TASKS = 10_000;
const GOAL_RATIO = 3;
const GOAL_LIST_MS = 1000;
const GOAL_LIST_RSS_MB = 150;

// Loaded with `node -r` into a measured process: its peak RSS (bytes) goes to the file named by
// ORANGE_BENCH_RSS_FILE when it exits. Node's own figure, so no GNU time is needed.
const RSS_HOOK = "process.on('exit', () => require('node:fs').writeFileSync(process.env.ORANGE_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));\n";

/** One child process, argv as an array (no shell); resolves with its exit code and wall time. */
function timed(file, args, options) {
  return new Promise((resolve) => {
    const started = performance.now();
    execFile(file, args, { ...options, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ ms: performance.now() - started, code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/**
 * Median wall time of `runs` runs after `warmups`, each followed by a `node -e 0` run whose
 * median is the row's baseline; `args(i)` may vary per run; `expect` is the exit code every run
 * must have. With `rss`, also the median peak RSS (the child loads RSS_HOOK); `before` runs
 * before each run.
 */
async function measure(label, args, options, expect, { runs = RUNS, warmups = WARMUPS, rss, before } = {}) {
  const times = [];
  const nodeTimes = [];
  const peaks = [];
  for (let i = 0; i < warmups + runs; i++) {
    await before?.();
    const argv = rss ? ['-r', rss.hook, ...args(i)] : args(i);
    const env = rss ? { ...options.env, ORANGE_BENCH_RSS_FILE: rss.file } : options.env;
    const run = await timed(process.execPath, argv, { ...options, env });
    if (run.code !== expect) throw new Error(`${label}: exit ${run.code}, expected ${expect}: ${String(run.stderr || run.stdout).trim()}`);
    const node = await timed(process.execPath, ['-e', '0'], { env: options.env });
    if (i < warmups) continue;
    times.push(run.ms);
    nodeTimes.push(node.ms);
    if (rss) peaks.push(Number(await readFile(rss.file, 'utf8')));
  }
  return { label, ms: median(times), nodeMs: median(nodeTimes), rss: rss ? median(peaks) : null };
}


/** A TASK.md body of about 1 KB, like a task with context and a plan. */
function realisticBody(n) {
  return [
    '## Context',
    '',
    `The sync loop fails intermittently when the cache is cold (issue #${1000 + n}). Reproduce with`,
    '`npm test -- sync`; acceptance: the worker survives three consecutive timeouts without losing work.',
    '',
    '```',
    `[${n}] sync: fetch https://api.example.com/v2/items?page=${n % 40} failed: ETIMEDOUT after 10000 ms`,
    '    at Sync.run (src/sync.ts:118:11)',
    '```',
    '',
    '## Plan',
    '',
    'APPROACH: wrap the fetch in a bounded retry with jittered exponential backoff; surface the last error.',
    'TOUCHING: src/sync.ts, src/retry.ts, test/sync.test.ts',
    'RISKS: longer worst-case latency for the sync loop; make the cap configurable.',
    '',
  ].join('\n');
}

const ms = (x) => `${x.toFixed(0)} ms`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export default async function bench() {
  const dir = await mkdtemp(join(tmpdir(), 'orange-bench-cli-'));
  const home = join(dir, 'home');
  const home10k = join(dir, 'home-10k');
  const repo = join(dir, 'repo');
  const repoTs = join(dir, 'repo-ts');
  const { TMUX, TMUX_PANE, ORANGE_TASK_ID, ORANGE_PROJECT, ORANGE_DEBUG, ...inherited } = process.env;
  const env = { ...inherited, ...GIT, ORANGE_HOME: home, XDG_CONFIG_HOME: join(dir, 'xdg') };
  const env10k = { ...env, ORANGE_HOME: home10k };
  try {
    await execa('git', ['init', '-q', '-b', 'main', repo], { env });
    await writeFile(join(repo, 'README.md'), 'bench\n');
    await execa('git', ['-C', repo, 'add', 'README.md'], { env });
    await execa('git', ['-C', repo, 'commit', '-q', '-m', 'init'], { env });
    // A second repository whose config is TypeScript (loaded through jiti, with its file cache).
    await execa('git', ['clone', '-q', repo, repoTs], { env });
    await writeFile(join(repoTs, 'orange.config.ts'), "const config: Record<string, unknown> = {};\nexport default config;\n");
    // An explicit empty config ends the config search here: no stray config above the temp dir is measured.
    await writeFile(join(dir, '.orangerc.json'), '{}\n');
    const rss = { hook: join(dir, 'rss-hook.cjs'), file: join(dir, 'rss') };
    await writeFile(rss.hook, RSS_HOOK);
    const orange = (cwd, args, e = env) => execa(process.execPath, [CLI, ...args], { cwd, env: e, extendEnv: false });
    // An empty summary creates the task in clarification; --no-spawn starts no agent.
    const clarificationTask = async (cwd, project) => {
      await orange(cwd, ['project', 'add', '--name', project]);
      const { task } = JSON.parse(String((await orange(cwd, ['task', 'create', `${project}/transition`, '', '--no-spawn', '--json'])).stdout));
      if (task.status !== 'clarification') throw new Error(`expected a clarification task, got ${task.status}`);
      return task;
    };
    const task = await clarificationTask(repo, 'bench');
    const taskTs = await clarificationTask(repoTs, 'bench-ts');
    let started = performance.now();
    await seedTasks(new OrangePaths(home), 'bench', TASKS);
    const seedMs = performance.now() - started;
    await orange(repo, ['project', 'add', '--name', 'bench'], env10k);
    started = performance.now();
    await seedTasks(new OrangePaths(home10k), 'bench', LIST_TASKS, realisticBody);
    const seed10kMs = performance.now() - started;

    // Each row: label, argv for run i, working directory, expected exit code, kind (agent: goal ≤ 3×), options.
    const cli = (args) => (i) => [CLI, ...(typeof args === 'function' ? args(i) : args)];
    const toggle = (id) => (i) => ['task', 'update', id, '--status', i % 2 === 0 ? 'planning' : 'clarification'];
    const plan = [
      ["node -e \"import('@oclif/core')\"", () => ['-e', "import('@oclif/core')"], join(root, 'packages/cli'), 0],
      ["node -e \"import('@orange/core')\"", () => ['-e', "import('@orange/core')"], join(root, 'packages/cli'), 0],
      ["node -e \"import('zod')\"  (part of @orange/core)", () => ['-e', "import('zod')"], join(root, 'packages/core'), 0],
      ['orange --version (oclif floor)', cli(['--version']), repo, 0],
      ['orange --help', cli(['--help']), repo, 0],
      ['orange task update <id> --status done (refused)', cli(['task', 'update', task.id, '--status', 'done']), repo, 1, 'agent'],
      // Alternates clarification → planning → clarification …; warm-ups included, so every run is accepted.
      ['orange task update <id> --status planning|clarification (accepted, no hooks)', cli(toggle(task.id)), repo, 0, 'agent'],
      ['  the same, config in orange.config.ts (jiti)', cli(toggle(taskTs.id)), repoTs, 0, 'agent'],
      ['orange task show <id>', cli(['task', 'show', task.id]), repo, 0, 'agent'],
      ['orange task show <id> --json', cli(['task', 'show', task.id, '--json']), repo, 0, 'agent'],
      // The code cache lever on its own: the same call compiling the bundle every time.
      ['  the same, without the code cache (NODE_DISABLE_COMPILE_CACHE=1)', cli(['task', 'show', task.id, '--json']), repo, 0, undefined, { NODE_DISABLE_COMPILE_CACHE: '1' }],
      [`orange task list (${TASKS + 1} tasks)`, cli(['task', 'list']), repo, 0],
      [`orange task list --json (${TASKS + 1} tasks)`, cli(['task', 'list', '--json']), repo, 0],
    ];
    const rows = [];
    for (const [label, args, cwd, expect, kind, extraEnv] of plan) {
      const row = await measure(label, args, { cwd, env: { ...env, ...extraEnv } }, expect);
      const ratio = row.ms / row.nodeMs;
      rows.push({
        figure: label,
        value: `${ms(row.ms)}  ${ratio.toFixed(1)}× node (${ms(row.nodeMs)})`,
        goal: kind === 'agent' ? `≤ ${GOAL_RATIO}× node` : undefined,
        met: kind === 'agent' ? ratio <= GOAL_RATIO : null,
      });
    }
    const list = await measure('task list --json (10,000)', cli(['task', 'list', '--json']), { cwd: repo, env: env10k }, 0, { rss });
    const listLabel = `orange task list --json (${LIST_TASKS.toLocaleString('en')} tasks, whole process)`;
    rows.push({ figure: `${listLabel}: wall`, value: `${ms(list.ms)}  ${(list.ms / list.nodeMs).toFixed(1)}× node (${ms(list.nodeMs)})`, goal: `≤ ${GOAL_LIST_MS} ms`, met: list.ms <= GOAL_LIST_MS });
    rows.push({ figure: `${listLabel}: peak RSS`, value: mb(list.rss), goal: `≤ ${GOAL_LIST_RSS_MB} MB`, met: list.rss <= GOAL_LIST_RSS_MB * 1024 * 1024 });
    // The listing index deleted before each run: the rebuild a first listing after an upgrade (or a lost index) pays.
    const index = new OrangePaths(home10k).taskIndexFile('bench');
    const rebuild = await measure('task list --json (10,000, no index)', cli(['task', 'list', '--json']), { cwd: repo, env: env10k }, 0, { rss, runs: 5, warmups: 1, before: () => rm(index, { force: true }) });
    rows.push({ figure: `  the same, no index (deleted before each of 5 runs): wall`, value: `${ms(rebuild.ms)}  ${(rebuild.ms / rebuild.nodeMs).toFixed(1)}× node (${ms(rebuild.nodeMs)})` });
    rows.push({ figure: `  the same, no index: peak RSS`, value: mb(rebuild.rss) });

    console.log(
      `median of ${RUNS} runs after ${WARMUPS} warm-ups, each run followed by a \`node -e 0\` run (the ratio's baseline); ` +
        `${TASKS} tasks created through TaskStore.create in ${(seedMs / 1000).toFixed(1)} s, ${LIST_TASKS.toLocaleString('en')} (~1 KB bodies) in ${(seed10kMs / 1000).toFixed(1)} s`,
    );
    printTable(rows);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
