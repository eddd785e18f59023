// Dashboard figures, in a real terminal (a tmux pane of its own, read with capture-pane): the time
// from starting `orange dash --all` to the first full screen (the footer and the first task row
// drawn) over 1,000 and 10,000 tasks, and the time from `orange task update --status` exiting (the
// status is written) to the new status on screen, median and p95 of 25 changes. The write's time is
// the mtime of the task's state.json (the status of record), so CLI start-up is not counted.
//
// Beside each first-screen figure, in the same stretch: `orange task list --all --json` over the
// same tasks and a bare `node -e 0`, so a loaded machine can be read off (the dashboard pays the
// CLI's start-up, the config and plugins, and the listing, like `task list`, before drawing).
//
// The tasks are created through TaskStore.create (as cli.bench does). The first screen is taken two
// ways, run after run: the normal case, the dashboard running the monitor's pass itself (it starts
// as the dashboard opens and competes for the CPU with the first screen), and beside an
// `orange monitor` of every project (the bench process enters the monitor lease as one), where
// the dashboard runs no pass. None of the seeded tasks has an agent: the warm-up run's pass has
// the exit rules handle each once (a crash counted, as on a machine after a reboot), so the
// measured passes find a settled fleet and only read it, as a steady pass does.
// The status-to-screen latency is taken beside the lease holder, so a pass does not move the probe.
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OrangePaths, TaskStore, newTaskId, newTaskMeta, processStart } from '@orange/core';
import { root, median, pct, printTable, withTempDir, runProgram, seedTasks } from './lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.cjs');
const CHANGES = 25;
const GOAL_FIRST_1K_MS = 1500;
const GOAL_FIRST_10K_MS = 3000;
const GOAL_LATENCY_MS = 500;



/** A pane on a tmux server of its own, with the bench's ORANGE_HOME. */
function terminal(home, socket) {
  const env = { ...process.env, ORANGE_HOME: home, ORANGE_TMUX_SOCKET: `${socket}-agents` };
  delete env.TMUX;
  const tmux = (...args) => runProgram('tmux', ['-L', socket, ...args], { env });
  return {
    tmux,
    screen: async () => (await tmux('capture-pane', '-p', '-t', 'dash')).stdout,
    /** Polls the screen every `everyMs` until `test` holds; returns when it held (Date.now). */
    async until(test, timeoutMs = 60_000, everyMs = 10) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const screen = (await tmux('capture-pane', '-p', '-t', 'dash')).stdout;
        if (test(screen)) return Date.now();
        await new Promise((r) => setTimeout(r, everyMs));
      }
      throw new Error(`dashboard bench: the screen never got there:\n${(await tmux('capture-pane', '-p', '-t', 'dash')).stdout}`);
    },
    /** Quits the dashboard with q and waits until its process (the pane's) is gone, so the home can be removed. */
    async quit() {
      await tmux('send-keys', '-t', 'dash', 'q');
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (await tmux('has-session', '-t', 'dash')).code === 0) await new Promise((r) => setTimeout(r, 50));
      await tmux('kill-server');
    },
    env,
  };
}

const fullScreen = (screen) => screen.includes('q quit') && /^[●✗○]/m.test(screen);

let servers = 0;

/**
 * Starts the dashboard in a fresh pane and returns the milliseconds to its first full screen. Each
 * run gets a tmux server of its own: a server still going down after the last one's quit would
 * refuse the next session ("server exited unexpectedly").
 */
async function firstScreen(home, socket, cwd) {
  const term = terminal(home, `${socket}-${++servers}`);
  const started = Date.now();
  await term.tmux('new-session', '-d', '-s', 'dash', '-x', '120', '-y', '40', '-c', cwd, process.execPath, CLI, 'dash', '--all');
  const shown = await term.until(fullScreen);
  await term.quit();
  return shown - started;
}

/** Enters the bench process in the monitor lease as an `orange monitor` of every project (or leaves it empty). */
async function setLease(paths, held) {
  await mkdir(join(paths.home, 'run'), { recursive: true });
  const holder = { pid: process.pid, start: (await processStart(process.pid)) ?? '', kind: 'monitor', project: null, since: new Date().toISOString() };
  await writeFile(paths.monitorLeaseFile, JSON.stringify({ holders: held ? [holder] : [] }));
}

export default async function bench() {
  const rows = [];
  for (const [count, runs, goal] of [
    [1000, 5, GOAL_FIRST_1K_MS],
    [10_000, 3, GOAL_FIRST_10K_MS],
  ]) {
    await withTempDir(`dash-${count}`, async (dir) => {
      const paths = new OrangePaths(join(dir, 'home'));
      await seedTasks(paths, 'bench', count);
      // Registered, as a project with tasks is: the monitor's pass reads its workflow.
      await writeFile(paths.projectsFile, JSON.stringify([{ name: 'bench', path: dir, default_branch: 'main', pool_size: 2 }]));
      const socket = `orange-bench-dash-${process.pid}-${count}`;
      const times = [];
      const beside = [];
      const lists = [];
      const nodes = [];
      const listEnv = { ...process.env, ORANGE_HOME: paths.home };
      // The first run also builds the store's listing index, as any first `task list` would, and
      // its pass handles the seeded tasks' missing agents once.
      await setLease(paths, false);
      await firstScreen(paths.home, socket, dir);
      for (let i = 0; i < runs; i++) {
        await setLease(paths, false);
        times.push(await firstScreen(paths.home, socket, dir));
        await setLease(paths, true);
        beside.push(await firstScreen(paths.home, socket, dir));
        let t = Date.now();
        await runProgram(process.execPath, [CLI, 'task', 'list', '--all', '--json'], { env: listEnv, cwd: dir });
        lists.push(Date.now() - t);
        t = Date.now();
        await runProgram(process.execPath, ['-e', '0']);
        nodes.push(Date.now() - t);
      }
      const ms = median(times);
      const what = `${count.toLocaleString('en')} tasks (median of ${runs})`;
      rows.push({ figure: `first full screen, ${what}, the dashboard running its own monitor pass`, value: `${ms.toFixed(0)} ms`, goal: `≤ ${goal} ms`, met: ms <= goal });
      rows.push({ figure: `first full screen, ${what}, beside an orange monitor (no pass of its own)`, value: `${median(beside).toFixed(0)} ms` });
      rows.push({ figure: `  same stretch: orange task list --all --json, ${what}`, value: `${median(lists).toFixed(0)} ms` });
      rows.push({ figure: '  same stretch: node -e 0', value: `${median(nodes).toFixed(0)} ms` });

      if (count !== 1000) return;
      // A task the CLI moves clarification ↔ planning (no gate, no hooks), found with / search.
      const store = new TaskStore(paths);
      const id = newTaskId();
      await store.create({ meta: newTaskMeta({ id, project: 'bench', branch: 'bench/latency', status: 'clarification', summary: 'latency probe' }), body: '' });
      await setLease(paths, true);
      const term = terminal(paths.home, socket);
      await term.tmux('new-session', '-d', '-s', 'dash', '-x', '120', '-y', '40', '-c', dir, process.execPath, CLI, 'dash', '--all');
      await term.until(fullScreen);
      await term.tmux('send-keys', '-t', 'dash', '/');
      await term.until((s) => s.includes('(Enter keep'));
      await term.tmux('send-keys', '-t', 'dash', '-l', 'bench/latency');
      await term.tmux('send-keys', '-t', 'dash', 'Enter');
      await term.until((s) => /bench\/latency\s+clarification/.test(s) && !/bench\/1\b/.test(s));
      const latencies = [];
      let status = 'clarification';
      for (let i = 0; i < CHANGES; i++) {
        const next = status === 'clarification' ? 'planning' : 'clarification';
        const updated = await runProgram(process.execPath, [CLI, 'task', 'update', id, '--status', next], { env: term.env, cwd: dir });
        if (updated.code !== 0) throw new Error(`dashboard bench: task update failed: ${updated.stderr}`);
        const written = (await stat(paths.taskStateFile('bench', id))).mtimeMs;
        const pattern = new RegExp(`bench/latency\\s+${next}\\b`);
        const shown = await term.until((s) => pattern.test(s), 10_000, 5);
        latencies.push(Math.max(0, shown - written));
        status = next;
      }
      await term.quit();
      const p50 = median(latencies);
      rows.push({ figure: `status written by the CLI → on screen (median of ${CHANGES}, beside an orange monitor)`, value: `${p50.toFixed(0)} ms`, goal: `≤ ${GOAL_LATENCY_MS} ms`, met: p50 <= GOAL_LATENCY_MS });
      rows.push({ figure: `status written by the CLI → on screen (p95)`, value: `${pct(latencies, 0.95).toFixed(0)} ms` });
    });
  }
  printTable(rows);
}
