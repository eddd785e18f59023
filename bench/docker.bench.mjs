// The Docker runtime against tmux alone, in one run on one machine: an agent's start-up (task
// created, and spawn recorded, → the agent's first line) and its exit → next status, with `orange monitor` serving
// the gateway in both. Needs ORANGE_DOCKER_TEST_IMAGE (scripts/docker-test-image.sh) on an
// engine that answers; otherwise it says why and prints nothing else.
import { execa } from 'execa';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readHistory } from '@orange/core';
import { GIT, median, pct, printTable, root, withTempDir, benchRepo } from './lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.cjs');
const AGENT = join(root, 'packages/cli/agents/scripted-agent.mjs');
const SAMPLES = Number(process.env.ORANGE_DOCKER_SAMPLES ?? 10);

/** Milliseconds of the agent log's `[HH:MM:SS.mmm]` stamp, on the day of `near` (UTC). */
function logTime(line, near) {
  const stamp = /^\[(\d\d:\d\d:\d\d\.\d\d\d)\]/.exec(line)?.[1];
  return stamp ? Date.parse(`${new Date(near).toISOString().slice(0, 10)}T${stamp}Z`) : NaN;
}

async function measure(image) {
  return withTempDir(image ? 'docker' : 'tmux', async (dir) => {
    const home = join(dir, 'home');
    const socket = `orange-bench-docker-${process.pid}-${image ? 'd' : 't'}`;
    const { TMUX, TMUX_PANE, ...inherited } = process.env;
    const logs = join(home, 'agent-logs');
    const env = { ...inherited, ...GIT, ORANGE_HOME: home, ORANGE_TMUX_SOCKET: socket, ORANGE_AGENT_LOG_DIR: logs };
    const repo = join(dir, 'repo');
    const orange = (args, input = '') => execa(process.execPath, [CLI, ...args], { cwd: repo, env, extendEnv: false, input, reject: false });
    await benchRepo(dir, env, 'x\n');
    await mkdir(logs, { recursive: true });
    const mounts = [process.execPath, root, logs].map((path) => ({ source: path, target: path, readonly: path !== logs }));
    const runtime = image ? `, docker(${JSON.stringify({ image, env: ['ORANGE_AGENT_LOG_DIR'], mounts })})` : '';
    await writeFile(
      join(dir, 'orange.config.mjs'),
      // By name, as a team's config imports them: the CLI hands the config its own bundled copies.
      "import { command } from '@orange/harness-command';\nimport { docker } from '@orange/runtime-docker';\n" +
        `export default { harness: 'scripted', plugins: [command({ name: 'scripted', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}] })${runtime}] };\n`,
    );
    const added = await orange(['project', 'add', repo, '--name', 'bench', '--pool-size', '2']);
    if (added.exitCode !== 0) throw new Error(String(added.stderr));
    const monitor = execa(process.execPath, [CLI, 'monitor', '--interval', '1000'], { cwd: repo, env, extendEnv: false, reject: false });
    const starts = [];
    const fromCreate = [];
    const exits = [];
    try {
      // The gateway's socket exists once the monitor serves it.
      for (let i = 0; i < 100; i++) if ((await execa('test', ['-S', join(home, 'gateway', 'agents.sock')], { reject: false })).exitCode === 0) break; else await new Promise((r) => setTimeout(r, 100));
      for (let i = 0; i < SAMPLES; i++) {
        const made = await orange(['task', 'create', `bench ${i}`, '--context', '-', '--json'], 'agent.worker: plan-then-exit\n');
        const json = JSON.parse(String(made.stdout));
        const id = json.task?.id ?? json.id;
        const deadline = Date.now() + 30_000;
        let history = [];
        while (Date.now() < deadline && !history.some((e) => e.type === 'status.changed' && e.to === 'working')) {
          await new Promise((r) => setTimeout(r, 25));
          history = await readHistory(join(home, 'tasks', 'bench', id, 'history.jsonl'));
        }
        const spawned = history.find((e) => e.type === 'agent.spawned');
        const changed = history.find((e) => e.type === 'status.changed' && e.to === 'working');
        const log = await readFile(join(logs, `${id}.log`), 'utf8').catch(() => '');
        const exitAt = Number(/exit 0 at (\d+)/.exec(log)?.[1]);
        const created = history.find((e) => e.type === 'task.created');
        const first = logTime(log.split('\n')[0] ?? '', Date.parse(history[0]?.timestamp ?? ''));
        if (spawned) starts.push(first - Date.parse(spawned.timestamp));
        if (created) fromCreate.push(first - Date.parse(created.timestamp));
        if (changed && exitAt) exits.push(Date.parse(changed.timestamp) - exitAt);
        await orange(['task', 'cancel', id, '--yes']);
      }
    } finally {
      monitor.kill('SIGTERM');
      await monitor;
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
      if (image) {
        const left = await execa('docker', ['ps', '-aq', '--filter', `label=orange.home=${home}`], { reject: false });
        const ids = String(left.stdout).split('\n').filter(Boolean);
        if (ids.length > 0) await execa('docker', ['rm', '-f', ...ids], { reject: false });
      }
    }
    return { starts: starts.filter(Number.isFinite), fromCreate: fromCreate.filter(Number.isFinite), exits };
  });
}

export default async function bench() {
  const image = process.env.ORANGE_DOCKER_TEST_IMAGE;
  const engine = image ? await execa('docker', ['image', 'inspect', image], { reject: false }) : null;
  if (!image || engine?.exitCode !== 0) {
    console.log(`skipped: ${image ? `docker cannot use image ${image}` : 'ORANGE_DOCKER_TEST_IMAGE is not set (scripts/docker-test-image.sh builds one)'}`);
    return;
  }
  const alone = await measure(null);
  const contained = await measure(image);
  const row = (what, xs) => ({ figure: `${what}, median / p90 of ${xs.length}`, value: `${median(xs)} / ${pct(xs, 0.9)} ms` });
  printTable([
    row('tmux alone: task created → agent first line', alone.fromCreate),
    row('in a container: task created → agent first line', contained.fromCreate),
    row('tmux alone: spawn recorded → agent first line', alone.starts),
    row('in a container: spawn recorded → agent first line', contained.starts),
    row('tmux alone: agent exit → next status', alone.exits),
    row('in a container: agent exit → next status', contained.exits),
  ]);
}
