// CLI start-up figures: the wall time of the commands agents run all day, against bare node.
// Agents call `orange task update …` from their worktrees constantly, so the target for agent
// commands is ≤ 3× a bare `node -e 0`. Printed, not asserted.
//
// The accepted transition is the default workflow's clarification ↔ planning pair: no gate, no
// guard and no hooks, so it measures start-up + config + plugins + lock + write + ledger and
// nothing that starts a process; it is timed once with a JSON config and once with a TypeScript
// one (jiti). The refused one is clarification → done (not in the map). The import lines show
// where start-up goes.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { OrangePaths, TaskStore, newTaskId, newTaskMeta } from '@orange/core';
import { root, median, GIT } from './lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.js');
const RUNS = 15;
const WARMUPS = 2;
const TASKS = 1000;
const TARGET = 3;

/** One child process, argv as an array (no shell); resolves with its exit code and wall time. */
function timed(file, args, options) {
  return new Promise((resolve) => {
    const started = performance.now();
    execFile(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ ms: performance.now() - started, code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Median wall time of `RUNS` runs after `WARMUPS`; `args(i)` may vary per run; `expect` is the exit code every run must have. */
async function measure(label, file, args, options, expect) {
  const times = [];
  for (let i = 0; i < WARMUPS + RUNS; i++) {
    const run = await timed(file, args(i), options);
    if (run.code !== expect) throw new Error(`${label}: exit ${run.code}, expected ${expect}: ${String(run.stderr || run.stdout).trim()}`);
    if (i >= WARMUPS) times.push(run.ms);
  }
  return { label, ms: median(times) };
}

/** Writes `count` tasks straight into the store (TASK.md + history.jsonl each), in parallel batches. */
async function seedTasks(paths, project, count) {
  const store = new TaskStore(paths);
  const statuses = ['pending', 'planning', 'working', 'agent-review', 'reviewing', 'done', 'cancelled'];
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, k) => {
        const n = i + k;
        const meta = newTaskMeta({ id: newTaskId(), project, branch: `bench/${n}`, status: statuses[n % statuses.length], summary: `bench task ${n}` });
        return store.create({ meta, body: `## Context\n\nSeeded task ${n}.\n` });
      }),
    );
  }
}

export default async function bench() {
  const dir = await mkdtemp(join(tmpdir(), 'orange-bench-cli-'));
  const home = join(dir, 'home');
  const repo = join(dir, 'repo');
  const repoTs = join(dir, 'repo-ts');
  const { TMUX, TMUX_PANE, ORANGE_TASK_ID, ORANGE_PROJECT, ORANGE_DEBUG, ...inherited } = process.env;
  const env = { ...inherited, ...GIT, ORANGE_HOME: home, XDG_CONFIG_HOME: join(dir, 'xdg') };
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
    const orange = (cwd, args) => execa(process.execPath, [CLI, ...args], { cwd, env, extendEnv: false });
    // An empty summary creates the task in clarification; --no-spawn starts no agent.
    const clarificationTask = async (cwd, project) => {
      await orange(cwd, ['project', 'add', '--name', project]);
      const { task } = JSON.parse(String((await orange(cwd, ['task', 'create', `${project}/transition`, '', '--no-spawn', '--json'])).stdout));
      if (task.status !== 'clarification') throw new Error(`expected a clarification task, got ${task.status}`);
      return task;
    };
    const task = await clarificationTask(repo, 'bench');
    const taskTs = await clarificationTask(repoTs, 'bench-ts');
    const seedStarted = performance.now();
    await seedTasks(new OrangePaths(home), 'bench', TASKS);
    const seedMs = performance.now() - seedStarted;

    // Each row: label, argv for run i, working directory, expected exit code, whether it is an agent command.
    const cli = (args) => (i) => [CLI, ...(typeof args === 'function' ? args(i) : args)];
    const toggle = (id) => (i) => ['task', 'update', id, '--status', i % 2 === 0 ? 'planning' : 'clarification'];
    const plan = [
      ['node -e 0', () => ['-e', '0'], repo, 0],
      ["node -e \"import('@oclif/core')\"", () => ['-e', "import('@oclif/core')"], join(root, 'packages/cli'), 0],
      ["node -e \"import('@orange/core')\"", () => ['-e', "import('@orange/core')"], join(root, 'packages/cli'), 0],
      ["node -e \"import('zod')\"  (part of @orange/core)", () => ['-e', "import('zod')"], join(root, 'packages/core'), 0],
      ['orange --version (oclif floor)', cli(['--version']), repo, 0],
      ['orange --help', cli(['--help']), repo, 0],
      ['orange task update <id> --status done (refused)', cli(['task', 'update', task.id, '--status', 'done']), repo, 1, true],
      // Alternates clarification → planning → clarification …; warm-ups included, so every run is accepted.
      ['orange task update <id> --status planning|clarification (accepted, no hooks)', cli(toggle(task.id)), repo, 0, true],
      ['  the same, config in orange.config.ts (jiti)', cli(toggle(taskTs.id)), repoTs, 0, true],
      ['orange task show <id>', cli(['task', 'show', task.id]), repo, 0, true],
      [`orange task list (${TASKS + 1} tasks)`, cli(['task', 'list']), repo, 0],
      [`orange task list --json (${TASKS + 1} tasks)`, cli(['task', 'list', '--json']), repo, 0],
    ];
    const rows = [];
    for (const [label, args, cwd, expect, agent = false] of plan) {
      rows.push({ ...(await measure(label, process.execPath, args, { cwd, env }, expect)), agent });
    }

    const base = rows[0].ms;
    const width = Math.max(...rows.map((r) => r.label.length));
    console.log(`median wall time of ${RUNS} runs after ${WARMUPS} warm-ups; ${TASKS} tasks seeded through TaskStore.create in ${seedMs.toFixed(0)} ms`);
    for (const row of rows) {
      const ratio = row.ms / base;
      const target = row.agent ? `   target ≤ ${TARGET}× (${ratio <= TARGET ? 'met' : 'not met'})` : '';
      console.log(`${row.label.padEnd(width)}  ${row.ms.toFixed(0).padStart(5)} ms  ${ratio.toFixed(1).padStart(4)}× node${target}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
