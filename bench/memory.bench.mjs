// Memory figures: what a project's memory saves. A fleet of 20 pipeline tasks of one intent (bugfix),
// one after another, each merged before the next starts, through the real CLI with real tmux,
// worktrees and merges; the scripted headless agent (memory-agent.mjs) fails at haiku for that
// intent, so without memory every task pays for two failed haiku runs before it escalates to
// sonnet. Run once with `pipeline({ memory: false })`, once with memory on (the default).
import { execa } from 'execa';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readHistory } from '@orange/core';
import { root, printTable, GIT } from './lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.cjs');
const AGENT = join(root, 'bench/memory-agent.mjs');
const HARNESS = join(root, 'plugins/harness-command/dist/index.js');
const PIPELINE = join(root, 'plugins/pipeline/dist/index.js');
const TASKS = 20;

async function fleet(memory) {
  const dir = await mkdtemp(join(tmpdir(), `orange-bench-memory-${memory ? 'on' : 'off'}-`));
  const socket = `orange-bench-memory-${process.pid}-${memory ? 'on' : 'off'}`;
  const { TMUX, TMUX_PANE, ORANGE_TASK_ID, ORANGE_PROJECT, ...inherited } = process.env;
  const home = join(dir, 'home');
  const calls = join(dir, 'calls.jsonl');
  const env = { ...inherited, ...GIT, ORANGE_HOME: home, ORANGE_TMUX_SOCKET: socket };
  const repo = join(dir, 'repo');
  const git = (cwd, ...args) => execa('git', args, { cwd, env });
  const orange = async (args) => {
    const result = await execa(process.execPath, [CLI, ...args], { cwd: repo, env, extendEnv: false, reject: false });
    if (result.exitCode !== 0) throw new Error(`orange ${args.join(' ')}: ${result.stderr || result.stdout}`);
    return String(result.stdout);
  };
  try {
    await git(dir, 'init', '-q', '--bare', '-b', 'main', 'origin.git');
    await git(dir, 'clone', '-q', 'origin.git', 'repo');
    await writeFile(join(repo, 'README.md'), 'x\n');
    await git(repo, 'checkout', '-q', '-b', 'main');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '-q', '-m', 'init');
    await git(repo, 'push', '-q', '-u', 'origin', 'main');
    const scripted = {
      name: 'scripted',
      worker: ['sleep', '300'],
      headless: [process.execPath, AGENT, '{phase}', '{model}', '{prompt}'],
      tiers: ['haiku', 'sonnet', 'opus'],
      env: { MEMORY_BENCH_CALLS: calls },
    };
    const settings = { intents: { bugfix: { phases: ['reproduce', 'fix'] } }, attempts: 2, breaker: 3, verify: [['git', 'status', '--short']], memory };
    await writeFile(
      join(dir, 'orange.config.mjs'),
      [
        `import { command } from ${JSON.stringify(HARNESS)};`,
        `import { pipeline } from ${JSON.stringify(PIPELINE)};`,
        `export default { harness: 'scripted', workflow: 'pipeline', plugins: [command(${JSON.stringify(scripted)}), pipeline(${JSON.stringify(settings)})] };`,
        '',
      ].join('\n'),
    );
    await orange(['project', 'add', repo, '--name', 'bench', '--pool-size', '2']);
    const tasks = [];
    const started = Date.now();
    for (let i = 1; i <= TASKS; i++) {
      const created = JSON.parse(await orange(['task', 'create', `bench/fix-${i}`, `Fix parser crash #${i}`, '--json']));
      const id = created.task?.id ?? created.id;
      const historyFile = join(home, 'tasks', 'bench', id, 'history.jsonl');
      // Ended, with the end's actions done (save_memory, release_workspace): the driver's last move is recorded.
      const deadline = Date.now() + 120_000;
      let end;
      while (!end && Date.now() < deadline) {
        const history = await readHistory(historyFile).catch(() => []);
        end = history.find((e) => e.type === 'auto.advanced' && ['completed', 'failed', 'stopped'].includes(e.to))?.to;
        if (!end) await new Promise((r) => setTimeout(r, 100));
      }
      const meta = JSON.parse(await orange(['task', 'show', id, '--json'])).task;
      tasks.push({ id, end: end ?? 'timed out', cost: Number(meta.cost_total_usd ?? 0), tier: meta.tier });
      // A person merges it: the memory entry reaches the default branch with the task's work.
      if (end === 'completed') await orange(['task', 'merge', id, '--yes']);
    }
    const seconds = (Date.now() - started) / 1000;
    const runs = (await readFile(calls, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    await git(repo, 'pull', '-q', '--ff-only');
    const listed = JSON.parse(await orange(['memory', 'list', '--json'])).entries.length;
    return { tasks, runs, seconds, listed };
  } finally {
    await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
    await rm(dir, { recursive: true, force: true });
  }
}

const usd = (n) => `$${n.toFixed(2)}`;

export default async function bench() {
  const off = await fleet(false);
  const on = await fleet(true);
  const total = (f) => f.tasks.reduce((n, t) => n + t.cost, 0);
  const count = (f, pred) => f.runs.filter(pred).length;
  const describe = (f) =>
    `${count(f, (r) => r.phase !== 'classify')} phase runs (${count(f, (r) => r.phase !== 'classify' && r.model === 'haiku')} on haiku, all failed), ` +
    `${f.tasks.filter((t) => t.end === 'completed').length}/${TASKS} completed${ends(f)}, ${f.seconds.toFixed(0)} s`;
  const ends = (f) => {
    const others = f.tasks.filter((t) => t.end !== 'completed').map((t) => `${t.id} ${t.end} at $${t.cost.toFixed(2)}`);
    return others.length > 0 ? ` (not completed: ${others.join(', ')})` : '';
  };
  const firstAtSonnet = on.tasks.findIndex((t, i) => on.runs.find((r) => r.task === t.id && r.phase === 'reproduce')?.model === 'sonnet');
  printTable([
    { figure: `${TASKS} bugfix tasks, haiku fails them; memory off: total cost`, value: usd(total(off)) },
    { figure: '  runs', value: describe(off) },
    { figure: `${TASKS} bugfix tasks, haiku fails them; memory on: total cost`, value: usd(total(on)), goal: `< ${usd(total(off))}`, met: total(on) < total(off) },
    { figure: '  runs', value: describe(on) },
    { figure: '  first task that started at sonnet (memory on)', value: firstAtSonnet < 0 ? 'none' : `#${firstAtSonnet + 1}` },
    { figure: '  entries in orange memory list after the fleet (on / off)', value: `${on.listed} / ${off.listed}` },
    { figure: 'saved by memory', value: `${usd(total(off) - total(on))} (${(((total(off) - total(on)) / total(off)) * 100).toFixed(0)}%)` },
  ]);
}
