import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { HistoryEvent, TaskMeta } from '@orange/core';
import { standInGh, type PullRequestState, type StandInGh } from '@orange/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARE_CONFIG, CLI, CliSandbox, root } from './cli-sandbox.js';

interface MonitorReport {
  tasks: number;
  agentsChecked: number;
  exits: Array<{ task: string; role: string; decision: string; reason: string }>;
  sessionsKilled: string[];
  workspacesFreed: string[];
  pullRequests: Array<{ task: string; state: string; to: string | null }>;
  pullRequestsRead: Array<{ task: string; url: string; state: string | null; checks: unknown[] | null }>;
  runtimeProcesses: number;
  durationMs: number;
}

interface LogRecord {
  level: string;
  component: string;
  msg: string;
  [field: string]: unknown;
}

interface WorkspaceRow {
  name: string;
  path: string;
  task: string | null;
}

// The tmux plugin names a task's session <project>/<task id>.
const session = (meta: TaskMeta) => `${meta.project}/${meta.id}`;
const types = (events: HistoryEvent[]) => events.map((e) => e.type);

/** What a pass that found nothing to do reports. */
const NOTHING_DONE = { exits: [], sessionsKilled: [], workspacesFreed: [], pullRequests: [] };

/** Every session on the sandbox's tmux server. */
async function sessions(box: CliSandbox): Promise<string[]> {
  const result = await box.tmux('list-sessions', '-F', '#{session_name}');
  return result.code === 0 ? result.stdout.split('\n').filter(Boolean) : [];
}

/**
 * A task that finished while its session and worktree lived on: its worktree has uncommitted
 * changes, so cancelling it cannot release the worktree (the hook refuses and the task keeps it),
 * and a session under its name is started again afterwards, as if `kill_session` had missed it.
 */
async function orphanedTask(box: CliSandbox, branch: string, cwd = box.repo): Promise<TaskMeta> {
  const started = await box.createTask([branch, `orphan ${branch}`], { spawn: true, cwd });
  const workspace = started.workspace as string;
  await writeFile(join(workspace, 'half-done.md'), 'uncommitted\n');
  const cancelled = await box.json<{ task: TaskMeta; failedHooks: string[] }>(['task', 'cancel', started.id, '--yes'], { cwd });
  expect(cancelled.task).toMatchObject({ status: 'cancelled', workspace });
  expect(cancelled.failedHooks).toEqual(['release_workspace']);
  expect(await box.tmux('new-session', '-d', '-s', session(started), 'sleep', '300')).toMatchObject({ code: 0 });
  return cancelled.task;
}

/** SIGKILL to the worker's process group: its wrapper cannot report, only a monitor pass notices. */
async function killWorkerSilently(box: CliSandbox, meta: TaskMeta): Promise<void> {
  const pane = await box.tmux('list-panes', '-t', `=${session(meta)}:=worker`, '-F', '#{pane_pid}');
  // An empty answer would make this kill(0): SIGKILL to the test's own process group.
  expect(pane.stdout.trim(), pane.stderr).toMatch(/^[1-9][0-9]*$/);
  process.kill(-Number(pane.stdout.trim()), 'SIGKILL');
  await box.waitFor('the worker window to close', async () => !(await box.windows()).includes(`${session(meta)}:worker`));
}

/** The task holding `workspace` in the pool (null when free), as `workspace list` shows it. */
async function holder(box: CliSandbox, project: string, workspace: string): Promise<string | null | undefined> {
  const { workspaces } = await box.json<{ workspaces: WorkspaceRow[] }>(['workspace', 'list', '--project', project]);
  return workspaces.find((w) => w.path === workspace)?.task;
}

describe('orange monitor with pull requests and orphans', () => {
  let box: CliSandbox;
  let gh: StandInGh;

  beforeAll(async () => {
    box = await CliSandbox.create({ poolSize: 4 });
    gh = await standInGh(box.dir, box.env.PATH ?? '');
  });
  afterAll(() => box?.cleanup());

  /** Opens PR number `n` for the task through `task create-pr` and the stand-in gh; the PR starts open. */
  async function openPullRequest(task: TaskMeta, n: number): Promise<string> {
    await gh.nextPullRequest(n);
    await setPullRequest(n, 'OPEN');
    const out = await box.json<{ url: string; task: TaskMeta }>(['task', 'create-pr', task.id], { env: gh.env });
    expect(out.task.pr_url).toBe(`https://github.com/example/app/pull/${n}`);
    return out.url;
  }

  const setPullRequest = (n: number, state: PullRequestState) => gh.setPullRequestState(n, state);
  const ghCalls = async () => (await gh.calls()).map((argv) => argv.join(' '));

  /** A task in reviewing with its worktree and a live worker, reached the way a human would. */
  async function reviewingWithWorker(branch: string): Promise<TaskMeta> {
    const started = await box.startTask(branch);
    await box.toWorking(started);
    await box.json(['task', 'update', started.id, '--status', 'stuck']);
    const reviewing = await box.json<{ task: TaskMeta }>(['task', 'update', started.id, '--status', 'reviewing']);
    expect(reviewing.task).toMatchObject({ status: 'reviewing', workspace: started.workspace });
    expect(await box.windows()).toContain(`${session(started)}:worker`);
    return reviewing.task;
  }

  /** A task created in reviewing on a local branch, with no worktree and no agent. */
  async function reviewingOnBranch(branch: string): Promise<TaskMeta> {
    await box.git(box.repo, 'branch', branch);
    return box.createTask([branch, `review ${branch}`, '--status', 'reviewing']);
  }

  it('a merged pull request finishes the task with merge cleanup, once', async () => {
    const task = await reviewingWithWorker('feature/pr-merged');
    const workspace = task.workspace as string;
    const url = await openPullRequest(task, 11);
    expect(await box.git(box.origin, 'branch', '--list', 'feature/pr-merged')).not.toBe('');

    // Still open on GitHub: the pass asks and leaves the task alone.
    const asked = (await ghCalls()).length;
    const open = await box.json<MonitorReport>(['monitor', '--once'], { env: gh.env });
    expect(open).toMatchObject({ ...NOTHING_DONE, pullRequestsRead: [{ task: task.id, url, state: 'open', checks: [] }] });
    expect((await box.task(task.id)).meta.status).toBe('reviewing');
    // One call for the pull request: its feedback carries the state.
    expect((await ghCalls()).slice(asked)).toEqual([`pr view ${url} --json state,url,headRefOid,reviewDecision,statusCheckRollup,latestReviews`]);

    await setPullRequest(11, 'MERGED');
    const merged = await box.json<MonitorReport>(['monitor', '--once'], { env: gh.env });
    expect(merged).toMatchObject({ ...NOTHING_DONE, pullRequests: [{ task: task.id, state: 'merged', to: 'done' }] });
    expect((await box.task(task.id)).meta).toMatchObject({ status: 'done', workspace: null, worker_spawn: null });
    const history = await box.history(task.id);
    const changed = history.filter((e) => e.type === 'status.changed').at(-1);
    expect(changed).toMatchObject({ from: 'reviewing', to: 'done', cause: 'auto', reason: 'pull request merged' });
    expect(history.at(-1)).toMatchObject({ type: 'task.merged', via: 'pull request', url });
    expect(types(history)).toContain('workspace.released');
    expect(await sessions(box)).not.toContain(session(task));
    expect(await holder(box, 'demo', workspace)).toBeNull();
    // done deletes the task branch on origin, as a merge does.
    expect(await box.git(box.origin, 'branch', '--list', 'feature/pr-merged')).toBe('');

    const callsBefore = (await ghCalls()).length;
    const again = await box.json<MonitorReport>(['monitor', '--once'], { env: gh.env });
    expect(again).toMatchObject(NOTHING_DONE);
    expect(await box.history(task.id)).toEqual(history);
    // A finished task's pull request is not asked about again.
    expect((await ghCalls()).slice(callsBefore)).toEqual([]);
  });

  it('a pull request closed without merging cancels the task', async () => {
    const task = await reviewingOnBranch('feature/pr-closed');
    await openPullRequest(task, 12);
    await setPullRequest(12, 'CLOSED');
    const human = await box.orange(['monitor', '--once'], { env: gh.env });
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toMatch(new RegExp(`^\\S+ ${task.id} pull request closed → cancelled$`, 'm'));
    expect((await box.task(task.id)).meta.status).toBe('cancelled');
    const history = await box.history(task.id);
    expect(history.filter((e) => e.type === 'status.changed').at(-1)).toMatchObject({ from: 'reviewing', to: 'cancelled', cause: 'auto', reason: 'pull request closed' });
    expect(history.at(-1)).toMatchObject({ type: 'auto.advanced', from: 'reviewing', to: 'cancelled', reason: 'pull request closed' });
    expect(types(history)).not.toContain('task.merged');
  });

  it('without gh on PATH, pull request sync is skipped with one log line and the task is left alone', async () => {
    const task = await reviewingOnBranch('feature/pr-no-gh');
    await openPullRequest(task, 13);
    await setPullRequest(13, 'MERGED');
    const before = await box.taskText(task.id);

    const human = await box.orange(['monitor', '--once']);
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toMatch(/^checked \d+ tasks, \d+ agents in \d+ ms$/);
    const json = await box.json<MonitorReport>(['monitor', '--once']);
    expect(json).toMatchObject(NOTHING_DONE);
    expect(await box.taskText(task.id)).toBe(before);
    expect(types(await box.history(task.id))).toEqual(['task.created', 'pr.created']);

    // One line per pass (not per task), naming the missing gh: two passes ran, so two lines.
    const { records } = await box.json<{ records: LogRecord[] }>(['log', '--component', 'monitor', '--level', 'warn', '--grep', 'pull request sync']);
    const reason = 'gh (GitHub CLI) is not installed; install it or merge locally with orange task merge --local (m in the dashboard)';
    expect(records).toEqual([
      expect.objectContaining({ msg: 'pull request sync skipped', reason }),
      expect.objectContaining({ msg: 'pull request sync skipped', reason }),
    ]);
    // Leave nothing open for the next test's passes.
    await box.json(['task', 'cancel', task.id, '--yes']);
  });

  it('kills the session and frees the worktree of a task that finished while they lived on', async () => {
    const task = await orphanedTask(box, 'feature/orphan');
    const workspace = task.workspace as string;
    expect(await holder(box, 'demo', workspace)).toBe(task.id);
    expect(await sessions(box)).toContain(session(task));

    const report = await box.json<MonitorReport>(['monitor', '--once']);
    expect(report).toMatchObject({ exits: [], sessionsKilled: [session(task)], workspacesFreed: [basename(workspace)], pullRequests: [] });
    expect(await sessions(box)).not.toContain(session(task));
    expect(await holder(box, 'demo', workspace)).toBeNull();
    expect((await box.task(task.id)).meta).toMatchObject({ status: 'cancelled', workspace: null });
    expect((await box.history(task.id)).at(-1)).toMatchObject({ type: 'workspace.released', workspace, by: 'gc' });
    // A cancelled task's leftovers are discarded.
    expect(existsSync(join(workspace, 'half-done.md'))).toBe(false);

    const human = await box.orange(['monitor', '--once']);
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toMatch(/^checked \d+ tasks, \d+ agents in \d+ ms$/);
  });
});

describe('orange monitor --project', () => {
  let box: CliSandbox;
  let betaRepo: string;

  beforeAll(async () => {
    box = await CliSandbox.create({ project: 'alpha', poolSize: 2 });
    betaRepo = await box.addProject('beta', 2);
  });
  afterAll(() => box?.cleanup());

  it('acts only on the named project: its dead agent, orphan session and orphan worktree', async () => {
    const alphaDead = await box.startTask('feature/dead');
    const betaDead = await box.createTask(['feature/dead', 'work on feature/dead'], { spawn: true, cwd: betaRepo });
    const alphaOrphan = await orphanedTask(box, 'feature/orphan');
    const betaOrphan = await orphanedTask(box, 'feature/orphan', betaRepo);
    await killWorkerSilently(box, alphaDead);
    await killWorkerSilently(box, betaDead);

    const alpha = await box.json<MonitorReport>(['monitor', '--once', '--project', 'alpha']);
    expect(alpha.exits).toEqual([expect.objectContaining({ task: alphaDead.id, role: 'worker', decision: 'crash' })]);
    expect(alpha.sessionsKilled).toEqual([session(alphaOrphan)]);
    // One pool file serves every project, so its gc must be scoped too, not only the task list.
    expect(alpha.workspacesFreed).toEqual([basename(alphaOrphan.workspace as string)]);
    expect(alpha.tasks).toBe(2);

    // beta is exactly as it was: its agent still counted as running, its orphans still there.
    expect((await box.task(betaDead.id, 'beta')).meta).toMatchObject({ status: 'planning', worker_spawn: betaDead.worker_spawn, crash_count: 0 });
    expect(await sessions(box)).toContain(session(betaOrphan));
    expect(await holder(box, 'beta', betaOrphan.workspace as string)).toBe(betaOrphan.id);

    const beta = await box.json<MonitorReport>(['monitor', '--once', '--project', 'beta']);
    expect(beta.exits).toEqual([expect.objectContaining({ task: betaDead.id, role: 'worker', decision: 'crash' })]);
    expect(beta.sessionsKilled).toEqual([session(betaOrphan)]);
    expect(beta.workspacesFreed).toEqual([basename(betaOrphan.workspace as string)]);
  });

  it('refuses a project that does not exist', async () => {
    const refused = await box.jsonError(['monitor', '--once', '--project', 'nope']);
    expect(refused).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', exit: 1 });
  });
});

describe('orange monitor beside another', () => {
  let box: CliSandbox;
  beforeAll(async () => {
    box = await CliSandbox.create({ project: 'alpha' });
    await box.addProject('beta', 1);
  });
  afterAll(() => box?.cleanup());

  /** Starts `orange monitor ARGS` in the background and waits until it is in the monitor lease. */
  async function running(args: string[]): Promise<{ child: ResultPromise }> {
    const child = execa(process.execPath, [CLI, 'monitor', '--interval', '60000', ...args], { cwd: box.repo, env: box.env, extendEnv: false, reject: false });
    const holders = async () => ((JSON.parse(await readFile(box.paths.monitorLeaseFile, 'utf8')) as { holders: Array<{ pid: number }> }).holders ?? []).map((h) => h.pid);
    await box.waitFor(`orange monitor ${args.join(' ')} to enter the lease`, async () => (await holders()).includes(child.pid ?? -1));
    // Wrapped: an async function returning the child itself would wait for it to end (it is a thenable).
    return { child };
  }

  it('refuses a second monitor whose scope a running one covers, and lets --once and other projects run', async () => {
    const { child: all } = await running([]);
    try {
      for (const args of [[], ['--project', 'alpha']]) {
        const refused = await box.orange(['monitor', ...args]);
        expect(refused).toMatchObject({ code: 1, stdout: '' });
        expect(refused.stderr).toBe(`orange: orange monitor pid ${all.pid} already watches every project; stop it first, or run one pass with --once`);
      }
      const json = await box.jsonError(['monitor']);
      expect(json).toMatchObject({ code: 'E_LOCKED', exit: 1 });
      // One pass on demand runs, under the pass lock (it waits for the running monitor's pass).
      expect(await box.orange(['monitor', '--once'])).toMatchObject({ code: 0, stderr: '' });
    } finally {
      all.kill('SIGTERM');
      expect((await all).exitCode).toBe(0);
    }

    const { child: alpha } = await running(['--project', 'alpha']);
    try {
      const refused = await box.orange(['monitor', '--project', 'alpha']);
      expect(refused.stderr).toBe(`orange: orange monitor pid ${alpha.pid} already watches project alpha; stop it first, or run one pass with --once`);
      // Another project, or every project, is not covered by it.
      const { child: beta } = await running(['--project', 'beta']);
      beta.kill('SIGTERM');
      expect((await beta).exitCode).toBe(0);
    } finally {
      alpha.kill('SIGTERM');
      expect((await alpha).exitCode).toBe(0);
    }
    // Each left the lease as it stopped.
    expect(JSON.parse(await readFile(box.paths.monitorLeaseFile, 'utf8'))).toEqual({ holders: [] });
  });
});

describe("orange monitor's agent gateway", () => {
  let box: CliSandbox;
  beforeAll(async () => {
    box = await CliSandbox.create({ project: 'alpha' });
    await box.addProject('beta', 1);
  });
  afterAll(() => box?.cleanup());

  // The agents' socket's lines (the people's socket, started beside it, logs its own).
  const logged = async (msg: string) =>
    (await readFile(box.paths.logFile, 'utf8').catch(() => '')).split('\n').filter((l) => l.includes(`"msg":"${msg}"`) && (!l.includes('"callers"') || l.includes('"callers":"agent"'))).length;
  const start = (args: string[]) => execa(process.execPath, [CLI, 'monitor', ...(args.includes('--interval') ? [] : ['--interval', '60000']), ...args], { cwd: box.repo, env: box.env, extendEnv: false, reject: false });

  it("listens on a socket only the user can reach, leaves it to the first monitor while that one runs, takes it over after, and removes it when it stops; --no-gateway never listens", async () => {
    const socket = box.paths.gatewaySocket;
    const first = start(['--project', 'alpha']);
    // The agents' socket exists before it is made 0600, and the people's is started only after it:
    // the people's "gateway listening" line comes once both are listening with their modes set.
    const peopleListening = async () =>
      (await readFile(box.paths.logFile, 'utf8').catch(() => '')).split('\n').some((l) => l.includes('"msg":"gateway listening"') && l.includes('"callers":"person"'));
    await box.waitFor("both gateway sockets to listen", async () => existsSync(socket) && (await peopleListening()));
    const { stat } = await import('node:fs/promises');
    expect(((await stat(socket)).mode & 0o777).toString(8)).toBe('600');
    expect(((await stat(join(socket, '..'))).mode & 0o777).toString(8)).toBe('700');
    expect(((await stat(box.paths.peopleSocket)).mode & 0o777).toString(8)).toBe('600');
    // A second monitor (of another project) finds the gateway served and leaves it be.
    const second = start(['--project', 'beta', '--interval', '300']);
    await box.waitFor('the second monitor to see the gateway served', async () => (await logged('another Orange serves the gateway')) >= 1);
    first.kill('SIGTERM');
    expect((await first).exitCode).toBe(0);
    // Its next pass takes the gateway over.
    await box.waitFor('the second monitor to take the gateway over', async () => (await logged('gateway listening')) >= 2 && existsSync(socket));
    second.kill('SIGTERM');
    expect((await second).exitCode).toBe(0);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(box.paths.peopleSocket)).toBe(false);

    const quiet = start(['--no-gateway']);
    await box.waitFor('the monitor to enter the lease', async () => (await readFile(box.paths.monitorLeaseFile, 'utf8').catch(() => '')).includes(String(quiet.pid)));
    expect(existsSync(socket)).toBe(false);
    quiet.kill('SIGTERM');
    expect((await quiet).exitCode).toBe(0);
    expect(await logged('gateway listening')).toBe(2);
  });
});

describe('commands that need what the config or the directory does not give', () => {
  it('task create-pr without an scm plugin fails naming the missing slot', async () => {
    // defaults: false drops every built-in plugin, github included.
    const bare = await CliSandbox.create({
      config: BARE_CONFIG,
    });
    try {
      const task = await bare.createTask(['feature/bare-pr', 'no scm to open it with', '--status', 'reviewing']);
      const human = await bare.orange(['task', 'create-pr', task.id]);
      expect(human).toMatchObject({ code: 1, stdout: '', stderr: 'orange: no plugin provides the scm slot (check the plugins in your orange config)' });
      const json = await bare.jsonError(['task', 'create-pr', task.id]);
      expect(json).toMatchObject({ code: 'E_NO_PROVIDER', exit: 1 });
      expect((await bare.task(task.id)).meta).toMatchObject({ status: 'reviewing', pr_url: null });
    } finally {
      await bare.cleanup();
    }
  });

  describe('outside any registered project', () => {
    let box: CliSandbox;
    const NOT_INSIDE = /^not inside a registered project; /;
    beforeAll(async () => {
      box = await CliSandbox.create();
    });
    afterAll(() => box?.cleanup());

    it('workspace init refuses with one sentence, exit 1, and creates no worktree', async () => {
      const human = await box.orange(['workspace', 'init'], { cwd: box.home });
      expect(human).toMatchObject({ code: 1, stdout: '' });
      expect(human.stderr).toBe('orange: not inside a registered project; run this in a repository added with orange project add, or pass --project NAME');
      const json = await box.jsonError(['workspace', 'init'], { cwd: box.home });
      expect(json).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', exit: 1 });
      expect((await box.json<{ workspaces: unknown[] }>(['workspace', 'list', '--all'])).workspaces).toEqual([]);
      expect(existsSync(box.paths.workspacesDir)).toBe(false);
    });

    it('project update refuses with one sentence, exit 1, whose advice project update accepts', async () => {
      const human = await box.orange(['project', 'update', '--pool-size', '3'], { cwd: box.home });
      expect(human).toMatchObject({ code: 1, stdout: '' });
      expect(human.stderr.split('\n')).toHaveLength(1);
      const json = await box.jsonError(['project', 'update', '--pool-size', '3'], { cwd: box.home });
      expect(json).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', exit: 1 });
      expect(json.error).toMatch(NOT_INSIDE);
      // project update takes the name as an argument and has no --project flag (docs/cli.md):
      // advice to pass --project would only lead to "Nonexistent flag", exit 2.
      expect(json.error).not.toContain('--project');
      const named = await box.json<{ project: { name: string; pool_size: number } }>(['project', 'update', 'demo', '--pool-size', '3'], { cwd: box.home });
      expect(named.project).toMatchObject({ name: 'demo', pool_size: 3 });
    });
  });
});

describe('orange monitor stopped by a signal', () => {
  let box: CliSandbox;
  let marker: string;
  beforeAll(async () => {
    // A plugin that, once the monitor runs, starts a child through execa: execa's signal-exit then
    // listens for SIGTERM after the monitor does, as it does during a pass's tmux call.
    marker = join(tmpdir(), `orange-busy-child-${process.pid}-${Date.now()}`);
    const config = BARE_CONFIG.replace(
      'export default {',
      [
        `import { execa } from ${JSON.stringify(join(root, 'node_modules/execa/index.js'))};`,
        "import { writeFileSync } from 'node:fs';",
        'const busyChild = {',
        "  name: 'busy-child',",
        '  apply() {',
        "    if (!process.argv.includes('monitor')) return;",
        '    setTimeout(() => {',
        "      const child = execa('sleep', ['30'], { stdio: 'ignore' });",
        '      child.catch(() => undefined);',
        '      child.unref();',
        `      writeFileSync(${JSON.stringify(marker)}, String(child.pid));`,
        '    }, 300).unref();',
        '  },',
        '};',
        'export default {',
        '  plugins: [busyChild],',
      ].join('\n'),
    );
    box = await CliSandbox.create({ config });
  });
  afterAll(async () => {
    await rm(marker, { force: true });
    await box?.cleanup();
  });

  it('stops cleanly on SIGTERM while a child process of another library is running (exit 0, lease left)', async () => {
    const monitor = execa(process.execPath, [CLI, 'monitor', '--interval', '60000'], { cwd: box.repo, env: box.env, extendEnv: false, reject: false });
    let said = '';
    monitor.stdout?.on('data', (chunk: Buffer) => (said += chunk.toString()));
    await box.waitFor('the monitor to start its child', async () => said.includes('monitoring') && existsSync(marker));
    monitor.kill('SIGTERM');
    const stopped = await monitor;
    expect({ exitCode: stopped.exitCode, signal: stopped.signal }, `stderr: ${String(stopped.stderr)}`).toEqual({ exitCode: 0, signal: undefined });
    expect(JSON.parse(await readFile(box.paths.monitorLeaseFile, 'utf8'))).toEqual({ holders: [] });
  });
});
