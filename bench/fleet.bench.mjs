// A fleet on one machine: N tasks with a worktree pool of P, fleet agents (bench/fleet-agent.mjs:
// think 1–3 s between steps, sections through the CLI, commits, half ask for their next status and
// half exit), `orange monitor` running, and a person merging each task as it reaches reviewing —
// real tmux, worktrees and a bare origin. Prints how many finished, how long Orange took to act on
// a request and on an exit, the CPU the whole machine spent per task (the person's merges included,
// the bench's own polling, done in-process, hardly), and the monitor's passes.
// Sizes: ORANGE_FLEET="50x50,16x4" (tasks x pool); default 16x4 and 50x50.
import { execa } from 'execa';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { OrangePaths, readHistory, TaskStore } from '@orange/core';
import { GIT, median, pct, printTable, root, withTempDir, benchRepo } from './lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.cjs');
const AGENT = join(root, 'bench/fleet-agent.mjs');
const PROBE = join(root, 'bench/cpu-probe.cjs');

/** What a Node process was, from its script and first arguments: `task update`, `window-reaper`, … */
function processKind(argv) {
  const [script = '', first = '', second = ''] = argv;
  const name = basename(script).replace(/\.(c|m)?js$/, '');
  if (name !== 'run') return name;
  if (first === 'task' && second === 'section') return 'task section';
  return ['task', 'agent', 'notifications', 'project'].includes(first) ? `${first} ${second}` : first;
}

/** CPU seconds by process kind, from the probe's log, largest first. */
async function cpuByKind(file) {
  const totals = new Map();
  for (const line of (await readFile(file, 'utf8').catch(() => '')).split('\n')) {
    if (!line.startsWith('{')) continue;
    const { argv, cpu } = JSON.parse(line);
    const kind = processKind(argv);
    const entry = totals.get(kind) ?? { kind, cpu: 0, count: 0 };
    entry.cpu += cpu;
    entry.count += 1;
    totals.set(kind, entry);
  }
  return [...totals.values()].sort((a, b) => b.cpu - a.cpu);
}

/** Busy and total CPU time of the whole machine so far, in seconds (/proc/stat's first line). */
async function machineCpu() {
  const [, ...fields] = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}

/**
 * A task that did not finish is a lost move until shown otherwise: its status, its last history
 * events, its agents' refusals and the log lines that name it are printed, and the run's
 * ORANGE_HOME is kept (copied next to the system's temp files) for a closer look.
 */
async function explainUnfinished(home, ids, statuses) {
  const log = (await readFile(join(home, 'orange.log'), 'utf8').catch(() => '')).split('\n');
  for (const id of ids.filter((i) => statuses.get(i) !== 'done')) {
    console.log(`\nnot done: ${id} (${statuses.get(id) ?? 'unknown'})`);
    const history = await readHistory(join(home, 'tasks', 'fleet', id, 'history.jsonl')).catch(() => []);
    for (const event of history.slice(-8)) console.log(`  history ${JSON.stringify(event)}`);
    const agent = (await readFile(join(home, 'agent-logs', `${id}.jsonl`), 'utf8').catch(() => '')).trim().split('\n');
    for (const line of agent.slice(-8)) console.log(`  agent   ${line}`);
    for (const line of log.filter((l) => l.includes(id)).slice(-12)) console.log(`  log     ${line}`);
  }
  const kept = join(tmpdir(), `orange-fleet-${Date.now()}`);
  await cp(home, kept, { recursive: true, filter: (src) => !src.includes('/worktrees/') }).catch(() => {});
  console.log(`\nthe run's ORANGE_HOME is kept at ${kept}`);
}

/**
 * The CPU of a bare `node -e 0` on this machine now, as the probe measures it (median of 15, in
 * seconds): the machine's speed drifts over a day by a third, and a figure in seconds is only
 * comparable with one taken at the same speed.
 */
async function bareNodeCpu(env, log) {
  for (let i = 0; i < 15; i++) await execa(process.execPath, ['-e', '0'], { env: { ...env, ORANGE_BENCH_CPU_LOG: log }, extendEnv: false });
  const runs = (await readFile(log, 'utf8')).trim().split('\n').map((line) => JSON.parse(line).cpu);
  return median(runs);
}

async function fleet(tasks, pool) {
  return withTempDir('fleet', async (dir) => {
    const socket = `orange-bench-fleet-${process.pid}`;
    const { TMUX, TMUX_PANE, ...inherited } = process.env;
    const home = join(dir, 'home');
    const repo = join(dir, 'repo');
    const cpuLog = join(dir, 'cpu.jsonl');
    // Every Node process of the run says at its exit how much CPU it used (bench/cpu-probe.cjs).
    const probe = `--require ${JSON.stringify(PROBE).slice(1, -1)}`;
    const nodeOptions = [inherited.NODE_OPTIONS, probe].filter(Boolean).join(' ');
    const env = { ...inherited, ...GIT, ORANGE_HOME: home, ORANGE_TMUX_SOCKET: socket, NODE_OPTIONS: nodeOptions, ORANGE_BENCH_CPU_LOG: cpuLog };
    const orange = (args, input = '') => execa(process.execPath, [CLI, ...args], { cwd: repo, env, extendEnv: false, input, reject: false });
    await benchRepo(dir, env, 'fleet\n');
    const agent = JSON.stringify([process.execPath, AGENT]);
    // By name, as a team's config imports it (and orange init writes it): the CLI hands the config
    // its own bundled copy. A file path would load a second @orange/core into every call.
    await writeFile(
      join(dir, 'orange.config.mjs'),
      `import { command } from '@orange/harness-command';\nexport default { harness: 'fleet', plugins: [command({ name: 'fleet', worker: ${agent}, reviewer: ${agent} })] };\n`,
    );
    const added = await orange(['project', 'add', repo, '--name', 'fleet', '--pool-size', String(pool)]);
    if (added.exitCode !== 0) throw new Error(String(added.stderr));

    const bareNode = await bareNodeCpu(env, join(dir, 'bare.jsonl'));
    const monitor = execa(process.execPath, [CLI, 'monitor', '--json'], { cwd: repo, env, extendEnv: false, reject: false });
    const cpuBefore = await machineCpu();
    const benchBefore = process.cpuUsage();
    const started = Date.now();
    const ids = [];
    for (let n = 0; n < tasks; n++) {
      const created = await orange(['task', 'create', `fleet/task-${n}`, `fleet task ${n}`, '--json']);
      if (created.exitCode !== 0) throw new Error(`task create: ${created.stderr}`);
      const json = JSON.parse(String(created.stdout));
      ids.push(json.task?.id ?? json.id);
    }
    // The person: merges whatever reaches reviewing, until every task is done or nothing moves for 90 s.
    const deadline = () => Date.now() - lastChange > 90_000;
    let lastChange = Date.now();
    let done = 0;
    const statuses = new Map();
    // Read in this process, not with `orange task list`: the person's polling is not the fleet's cost.
    const store = new TaskStore(new OrangePaths(home));
    while (done < tasks && !deadline()) {
      const rows = (await store.list('fleet')).tasks.map((t) => t.meta);
      for (const row of rows) {
        if (statuses.get(row.id) !== row.status) lastChange = Date.now();
        statuses.set(row.id, row.status);
      }
      done = rows.filter((r) => r.status === 'done').length;
      for (const row of rows.filter((r) => r.status === 'reviewing')) await orange(['task', 'merge', row.id, '--yes', '--strategy', 'merge']);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const seconds = (Date.now() - started) / 1000;
    const cpuAfter = await machineCpu();
    const benchUsage = process.cpuUsage(benchBefore);
    const bench = (benchUsage.user + benchUsage.system) / 1e6;
    monitor.kill('SIGTERM');
    const passes = String((await monitor).stdout)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line).durationMs);

    const requests = [];
    const exits = [];
    for (const id of ids) {
      const history = await readHistory(join(home, 'tasks', 'fleet', id, 'history.jsonl'));
      const changes = history.filter((e) => e.type === 'status.changed');
      const events = (await readFile(join(home, 'agent-logs', `${id}.jsonl`), 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      for (const event of events) {
        const to = event.event === 'request' ? event.to : event.event === 'exit' ? event.expect : null;
        if (to === null) continue;
        const change = changes.find((c) => c.to === to && Date.parse(c.timestamp) >= event.at - 5);
        if (change) (event.event === 'request' ? requests : exits).push(Date.parse(change.timestamp) - event.at);
      }
    }
    // Read before the clean-up below, whose cancels are not the fleet's cost (agents still running report later).
    const kinds = await cpuByKind(cpuLog);
    if (done < tasks) await explainUnfinished(home, ids, statuses);
    for (const id of ids) await orange(['task', 'cancel', id, '--yes']);
    await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
    const cpu = cpuAfter.busy - cpuBefore.busy;
    return { tasks, pool, done, seconds, requests, exits, cpu, bench, bareNode, cores: (cpu / (cpuAfter.total - cpuBefore.total)) * 100, passes, kinds };
  });
}

const ms = (xs, p) => (xs.length ? `${Math.round(pct(xs, p)).toLocaleString('en')}` : '—');

export default async function main() {
  const sizes = (process.env.ORANGE_FLEET ?? '16x4,50x50').split(',').map((s) => s.split('x').map(Number));
  for (const [tasks, pool] of sizes) {
    const r = await fleet(tasks, pool);
    console.log(`\n${tasks} tasks, pool ${pool}: ${r.seconds.toFixed(0)} s`);
    printTable([
      { figure: 'tasks done', value: `${r.done}/${r.tasks}`, goal: `${r.tasks}/${r.tasks}`, met: r.done === r.tasks },
      { figure: 'agent request → status, p50 / p90 (ms)', value: `${ms(r.requests, 0.5)} / ${ms(r.requests, 0.9)} (${r.requests.length})`, goal: 'p90 ≤ 1,000', met: r.requests.length ? pct(r.requests, 0.9) <= 1000 : null },
      { figure: 'agent exit → status, p50 / p90 (ms)', value: `${ms(r.exits, 0.5)} / ${ms(r.exits, 0.9)} (${r.exits.length})`, goal: 'p90 ≤ 1,000', met: r.exits.length ? pct(r.exits, 0.9) <= 1000 : null },
      { figure: 'machine busy during the run', value: `${r.cores.toFixed(0)} % of all cores` },
      { figure: 'CPU per task, whole machine (s)', value: (r.cpu / r.tasks).toFixed(2), goal: '≤ 1.3', met: r.cpu / r.tasks <= 1.3 },
      { figure: '  the same, in bare Node starts', value: `${(r.cpu / r.tasks / r.bareNode).toFixed(1)} (node -e 0: ${Math.round(r.bareNode * 1000)} ms)` },
      { figure: 'monitor passes, p50 / max (ms)', value: `${ms(r.passes, 0.5)} / ${r.passes.length ? Math.round(Math.max(...r.passes)).toLocaleString('en') : '—'} (${r.passes.length})`, goal: 'max ≤ 2,000', met: r.passes.length ? Math.max(...r.passes) <= 2000 : null },
    ]);
    // Where the CPU went: Node processes by kind (their own time); the rest is git, tmux and shells.
    const node = r.kinds.reduce((sum, k) => sum + k.cpu, 0);
    console.log('\nCPU by process (s per task; processes per task):');
    const others = [
      { kind: 'this bench (the person polling, in-process)', cpu: r.bench, count: NaN },
      { kind: 'other (git, tmux, shells, the kernel)', cpu: Math.max(0, r.cpu - node - r.bench), count: NaN },
    ];
    for (const k of [...r.kinds, ...others]) {
      console.log(`  ${k.kind.padEnd(40)} ${(k.cpu / r.tasks).toFixed(2).padStart(6)}  ${Number.isNaN(k.count) ? '' : (k.count / r.tasks).toFixed(1).padStart(5)}`);
    }
  }
}
