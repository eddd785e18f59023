import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Sandbox } from './sandbox.js';

const interference = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'interference-plugin.mjs')).href;

let box: Sandbox | undefined;
let monitor: ResultPromise | undefined;
const scratch: string[] = [];
afterEach(async () => {
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
  monitor?.kill('SIGTERM');
  await monitor?.catch(() => undefined);
  monitor = undefined;
  await box?.cleanup();
  box = undefined;
});

interface Row {
  readonly id: string;
  readonly status: string;
}

/** `orange monitor` as the README advises running it, polling often so that its passes meet the moves. */
function startMonitor(b: Sandbox, intervalMs: number): ResultPromise {
  return execa(process.execPath, [CLI, 'monitor', '--interval', String(intervalMs)], { cwd: b.repo, env: b.env, extendEnv: false, reject: false, all: true });
}

async function rows(b: Sandbox): Promise<Row[]> {
  const listed = await b.orange(['task', 'list', '--json']);
  if (listed.code !== 0) throw new Error(`task list failed: ${listed.stderr}`);
  return (JSON.parse(listed.stdout) as { tasks: Array<{ id: string; status: string }> }).tasks.map((t) => ({ id: t.id, status: t.status }));
}

/** What explains a queue that did not drain: each unfinished task's ledger, the pool, the warnings in orange.log. */
async function diagnosis(b: Sandbox, ids: readonly string[], monitorOutput: string): Promise<string> {
  const parts: string[] = [];
  for (const row of await rows(b)) {
    if (row.status === 'done') continue;
    const history = (await b.history(row.id)).map((e) => `    ${JSON.stringify(e)}`).join('\n');
    parts.push(`task ${row.id} is ${row.status}:\n${history}\n  agent log:\n${(await b.agentLog(row.id)).replace(/^/gm, '    ')}`);
  }
  const pool = await readFile(b.paths.poolFile, 'utf8').catch(() => '(no pool file)');
  const log = (await readFile(b.paths.logFile, 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => /"level":"(warn|error)"/.test(line))
    .slice(-40)
    .join('\n');
  return [`${ids.length} tasks`, ...parts, `pool: ${pool}`, `warnings and errors in orange.log:\n${log}`, `monitor output:\n${monitorOutput}`].join('\n\n');
}

/**
 * A person at the keyboard: merges every task that reaches `reviewing`, until all are done or the
 * deadline passes. Returns the final statuses.
 */
async function mergeUntilDone(b: Sandbox, ids: readonly string[], deadlineMs: number): Promise<Map<string, string>> {
  const deadline = Date.now() + deadlineMs;
  const statuses = new Map<string, string>();
  while (Date.now() < deadline) {
    for (const row of await rows(b)) statuses.set(row.id, row.status);
    if (ids.every((id) => statuses.get(id) === 'done')) break;
    for (const id of ids) {
      if (statuses.get(id) !== 'reviewing') continue;
      const merged = await b.orange(['task', 'merge', id, '--yes', '--strategy', 'merge']);
      if (merged.code !== 0) console.warn(`merge ${id}: ${merged.stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return statuses;
}

describe('a queue longer than the worktree pool, with the monitor running', () => {
  it('finishes 8 tasks of 8 with a pool of 2: every queued task starts as a worktree frees and none is killed', async () => {
    box = await Sandbox.create({ poolSize: 2 });
    monitor = startMonitor(box, 300);
    const b = box;
    const ids = await Promise.all(Array.from({ length: 8 }, (_, n) => b.createTask([`queue/task-${n}`, `queued task ${n}`], 'agent.pace: 150\n')));
    const statuses = await mergeUntilDone(b, ids, 150_000);
    const done = ids.filter((id) => statuses.get(id) === 'done').length;
    const explain = done === ids.length ? '' : await diagnosis(b, ids, String((monitor.kill('SIGTERM'), (await monitor).all)));
    expect(done, explain).toBe(ids.length);
    // Each task's agent was started once and never lost to another task's clean-up.
    for (const id of ids) {
      const crashes = (await b.history(id)).filter((e) => e.type === 'agent.crashed');
      expect(crashes, `task ${id} crashed`).toEqual([]);
    }
  }, 200_000);
});

describe('clean-ups that meet the next task', () => {
  it("a monitor pass that read the pool before a merge handed the worktree on leaves the next task's agent and worktree alone", async () => {
    const holds = await mkdtemp(join(tmpdir(), 'orange-e2e-holds-'));
    scratch.push(holds);
    box = await Sandbox.create({
      poolSize: 1,
      config: { imports: [`import { holdMonitorListing } from ${JSON.stringify(interference)};`], plugins: [`holdMonitorListing({ dir: ${JSON.stringify(holds)} })`] },
    });
    const b = box;
    const first = await b.createTask(['queue/first', 'the first task']);
    const next = await b.createTask(['queue/next', 'the queued task'], 'agent.pace: 1500\n');
    expect((await b.task(next)).meta.status).toBe('pending');
    const reviewing = await b.waitForStatus(first, 'reviewing', 60_000);
    const worktree = reviewing.meta.workspace as string;

    // The pass reads the pool (the worktree is first's), then waits before it looks at the tasks…
    await writeFile(join(holds, 'hold-demo'), '');
    const pass = execa(process.execPath, [CLI, 'monitor', '--once', '--json'], { cwd: b.repo, env: b.env, extendEnv: false, reject: false });
    await b.waitFor('the pass to reach the tasks', async () => existsSync(join(holds, 'held-demo')), 30_000);
    // …while the merge frees the worktree and spawn_next gives it to the queued task, whose agent starts.
    const merged = await b.orange(['task', 'merge', first, '--yes', '--strategy', 'merge']);
    expect(merged.code, merged.stderr).toBe(0);
    const started = await b.waitForStatus(next, ['planning', 'working']);
    expect(started.meta.workspace).toBe(worktree);
    await b.waitFor("the queued task's agent to run", async () => (await b.windows()).includes(`demo/${next}:worker`));
    await rm(join(holds, 'hold-demo'));

    const report = await pass;
    expect(report.exitCode, String(report.stderr)).toBe(0);
    expect(JSON.parse(String(report.stdout))).toMatchObject({ workspacesFreed: [] });
    expect((await b.windows()).includes(`demo/${next}:worker`), 'the queued task\'s agent still runs').toBe(true);
    expect(await readlink(join(worktree, 'TASK.md'))).toBe(b.paths.taskFile('demo', next));
    expect(await b.git(worktree, 'symbolic-ref', '--short', 'HEAD')).toBe('queue/next');
    await b.waitForStatus(next, 'reviewing', 60_000);
    expect((await b.history(next)).filter((e) => e.type === 'agent.crashed')).toEqual([]);
  });

  it("merging a task never kills the tmux server, even one started from that task's worktree", async () => {
    box = await Sandbox.create({ poolSize: 2 });
    const b = box;
    const first = await b.createTask(['server/first', 'the first task']);
    const reviewing = await b.waitForStatus(first, 'reviewing', 60_000);
    const worktree = reviewing.meta.workspace as string;
    // The move into reviewing is over: its worker was told, its reviewer's window is gone.
    await b.waitFor('the worker to be told', async () => (await b.history(first)).some((e) => e.type === 'worker.notified' && e.to === 'reviewing'));
    await b.waitFor('the reviewer window to go', async () => !(await b.windows()).some((w) => w.startsWith(`demo/${first}:review-`)), 20_000);
    // Its worker goes; with the last session gone the tmux server exits.
    await b.tmux('kill-session', '-t', `=demo/${first}`);
    await b.waitFor('the tmux server to exit', async () => (await b.tmux('list-sessions')).code !== 0, 10_000);
    // A person in that worktree starts the worker again: the new server is started by this call.
    const respawned = await b.orange(['task', 'respawn', first], { cwd: worktree });
    expect(respawned.code, respawned.stderr).toBe(0);
    const server = Number((await b.tmux('display-message', '-p', '#{pid}')).stdout.trim());
    expect(await readlink(`/proc/${server}/cwd`)).toBe('/');

    const second = await b.createTask(['server/second', 'the second task'], 'agent.pace: 1500\n');
    await b.waitFor("the second task's agent to run", async () => (await b.windows()).includes(`demo/${second}:worker`));
    const merged = await b.orange(['task', 'merge', first, '--yes', '--strategy', 'merge']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(Number((await b.tmux('display-message', '-p', '#{pid}')).stdout.trim())).toBe(server);
    expect((await b.windows()).includes(`demo/${second}:worker`)).toBe(true);
    await b.waitForStatus(second, 'reviewing', 60_000);
    expect((await b.history(second)).filter((e) => e.type === 'agent.crashed')).toEqual([]);
  });

  it("never closes a reviewer's window while its own call is still recording the move", async () => {
    box = await Sandbox.create({
      config: {
        imports: [`import { slowAction } from ${JSON.stringify(interference)};`],
        // A loaded machine: the reviewer's `task update --status reviewing` takes longer than 5 s.
        plugins: [`slowAction({ action: 'notify_worker', from: 'agent-review', to: 'reviewing', ms: 7000 })`],
      },
    });
    const b = box;
    const id = await b.createTask(['slow/review', 'a review on a loaded machine']);
    await b.waitForStatus(id, 'reviewing', 60_000);
    await b.waitFor('the reviewer window to go', async () => !(await b.windows()).some((w) => w.startsWith(`demo/${id}:review-`)), 20_000);
    const log = await b.agentLog(id);
    expect(log).toMatch(/reviewer: orange task update --status reviewing → ok/);
    const history = await b.history(id);
    const entered = history.findIndex((e) => e.type === 'status.changed' && e.to === 'reviewing');
    expect(history.slice(entered).map((e) => e.type)).toContain('worker.notified');
  });
});

