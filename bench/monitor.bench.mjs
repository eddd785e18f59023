// Exit monitoring figures: agent-exit → next-status latency (real tmux, worktrees, CLI and
// scripted agents), and the cost of one backstop poll pass over 1,000 active tasks.
import { execa } from 'execa';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Monitor, Orange, OrangePaths, newTaskMeta, newTaskId, readHistory } from '@orange/core';
import { tmux } from '@orange/plugin-tmux';
import { root, median, pct, printTable, GIT, benchRepo } from './lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.cjs');
const AGENT = join(root, 'packages/cli/agents/scripted-agent.mjs');
const HARNESS = join(root, 'plugins/harness-command/dist/index.js');

async function exitLatency(samples) {
  const dir = await mkdtemp(join(tmpdir(), 'orange-bench-exit-'));
  const socket = `orange-bench-${process.pid}`;
  const { TMUX, TMUX_PANE, ...inherited } = process.env;
  const env = { ...inherited, ...GIT, ORANGE_HOME: join(dir, 'home'), ORANGE_TMUX_SOCKET: socket };
  const orange = (args, input = '') => execa(process.execPath, [CLI, ...args], { cwd: join(dir, 'repo'), env, extendEnv: false, input, reject: false });
  try {
    const repo = await benchRepo(dir, env, 'x\n');
    await writeFile(
      join(dir, 'orange.config.mjs'),
      `import { command } from ${JSON.stringify(HARNESS)};\nexport default { harness: 'scripted', plugins: [command({ name: 'scripted', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}] })] };\n`,
    );
    const added = await orange(['project', 'add', repo, '--name', 'bench', '--pool-size', '4']);
    if (added.exitCode !== 0) throw new Error(String(added.stderr));
    const latencies = [];
    for (let i = 0; i < samples; i += 4) {
      const ids = [];
      for (let j = 0; j < 4 && i + j < samples; j++) {
        const created = await orange(['task', 'create', `bench ${i + j}`, '--context', '-', '--json'], 'agent.worker: plan-then-exit\n');
        const json = JSON.parse(String(created.stdout));
        ids.push(json.task?.id ?? json.id);
      }
      for (const id of ids) {
        const deadline = Date.now() + 20_000;
        let changed;
        while (Date.now() < deadline && !changed) {
          const history = await readHistory(join(dir, 'home', 'tasks', 'bench', id, 'history.jsonl'));
          changed = history.find((e) => e.type === 'status.changed' && e.to === 'working');
          if (!changed) await new Promise((r) => setTimeout(r, 50));
        }
        const log = await readFile(join(dir, 'home', 'agent-logs', `${id}.log`), 'utf8').catch(() => '');
        const exitAt = Number(/exit 0 at (\d+)/.exec(log)?.[1]);
        if (changed && exitAt) latencies.push(Date.parse(changed.timestamp) - exitAt);
        // Free the worktree for the next batch.
        await orange(['task', 'cancel', id, '--yes']);
      }
    }
    return latencies;
  } finally {
    await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
    await rm(dir, { recursive: true, force: true });
  }
}

async function pollPass(count) {
  const dir = await mkdtemp(join(tmpdir(), 'orange-bench-poll-'));
  const socket = `orange-bench-poll-${process.pid}`;
  const paths = new OrangePaths(dir);
  try {
    // Only liveness is measured: the workspace and SCM actions the workflow names are no-ops here.
    const noWorkspaces = {
      name: 'bench-noop',
      apply(o) {
        for (const action of ['acquire_workspace', 'release_workspace', 'spawn_next', 'delete_remote_branch']) {
          o.hooks.actions.for(action).tapPromise('bench-noop', async () => {});
        }
      },
    };
    const orange = await Orange.create({ plugins: [tmux({ socketName: socket }), noWorkspaces], defaults: false }, { paths });
    await orange.projects.add({ name: 'bench', path: join(dir, 'repo'), default_branch: 'main' });
    const runtime = orange.slot('runtime');
    const commands = [];
    for (let i = 0; i < count; i++) {
      const id = newTaskId();
      const meta = newTaskMeta({ id, project: 'bench', branch: `b/${i}`, status: 'working', worker_spawn: 'alive', workspace: dir });
      await orange.store.create({ meta, body: '' });
      await orange.store.appendHistory('bench', id, { type: 'status.changed', from: 'planning', to: 'working' });
      commands.push(['new-session', '-d', '-s', runtime.sessionName(meta), '-n', 'worker', 'sleep', '900']);
    }
    const { TMUX, TMUX_PANE, ...env } = process.env;
    // 100 sessions per tmux invocation, chained with ';' (one argv, no shell).
    for (let i = 0; i < commands.length; i += 100) {
      const batch = commands.slice(i, i + 100).flatMap((c, k) => (k === 0 ? c : [';', ...c]));
      await execa('tmux', ['-L', socket, ...batch], { env, extendEnv: false });
    }
    const monitor = new Monitor(orange, {});
    const runs = [];
    let report;
    for (let r = 0; r < 5; r++) {
      report = await monitor.pass();
      runs.push(report.durationMs);
    }
    return { runs, report };
  } finally {
    await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
    await rm(dir, { recursive: true, force: true });
  }
}

export default async function bench() {
  const latencies = await exitLatency(20);
  const { runs, report } = await pollPass(1000);
  printTable([
    { figure: `agent exit → next status written (planning → working), median of ${latencies.length} exits`, value: `${median(latencies)} ms` },
    { figure: '  p90 / max', value: `${pct(latencies, 0.9)} ms / ${Math.max(...latencies)} ms` },
    { figure: `poll pass over ${report.tasks} active tasks (all agents alive), median of ${runs.length} passes`, value: `${median(runs).toFixed(1)} ms` },
    { figure: '  tmux processes per pass / agents checked', value: `${report.runtimeProcesses} / ${report.agentsChecked}` },
  ]);
}
