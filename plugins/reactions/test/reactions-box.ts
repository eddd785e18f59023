import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Monitor, newTaskMeta, newTaskId, noopActions, Orange, OrangePaths, type Notification, type OrangePlugin, type TaskRef } from '@orange/core';
import { github } from '@orange/plugin-github';
import { tmux } from '@orange/plugin-tmux';
import { git, makeOrigin, processAlive, processesEnd, signalProcess, standInGh, tempDir, TmuxServer, waitFor, type GhAnswers } from '@orange/test-support';
import { reactions } from '../src/index.js';
import type { ReactionsOptionsInput } from '../src/options.js';

export const PR = 'https://github.com/acme/app/pull/7';

const AGENT = fileURLToPath(new URL('./recording-agent.sh', import.meta.url));
const FENCE = '[test fence';

/** One start of an agent, as it recorded it: its role, spawn id and pid. */
export interface AgentStart {
  readonly role: string;
  readonly spawn: string;
  readonly pid: number;
}

export interface ReactionsBox {
  readonly orange: Orange;
  readonly notifications: Notification[];
  /** The bare repository the project's clone pushes to (GitHub's side of the pull request). */
  readonly origin: string;
  /**
   * A task with an open pull request (`PR`): its own git worktree on branch `feat/<id>` with one
   * commit, pushed to `origin`, and its worker started by the tmux plugin in a real pane
   * (`agent-review`: the worker, then the reviewer through working → agent-review).
   */
  task(status?: 'reviewing' | 'working' | 'agent-review'): Promise<TaskRef>;
  /**
   * The lines the task's worker read from its terminal since the last call: a fence line is typed
   * after them and waited for, so a line typed before it and not read yet cannot be missed.
   */
  heard(ref: TaskRef): Promise<string[]>;
  /** Every start of the task's agents so far, oldest first. */
  starts(ref: TaskRef): Promise<AgentStart[]>;
  /** The prompt the agent of `spawn` was started with. */
  prompt(ref: TaskRef, spawn: string): Promise<string>;
  /** Ends the worker's process, as a crash would, and waits until tmux shows no live worker. */
  stopWorker(ref: TaskRef): Promise<void>;
  /** The pid of the worker window's pane, or null when the task has no worker window. */
  workerPane(ref: TaskRef): Promise<number | null>;
  /** Every window on the box's tmux server (`session:window`). */
  windows(): Promise<string[]>;
  git(dir: string, ...args: string[]): Promise<string>;
  gh(answers: GhAnswers): Promise<void>;
  ghCalls(): Promise<string[][]>;
  pass(): ReturnType<Monitor['pass']>;
  /** Kills the tmux server, removes its socket file, and fails when a process of the box outlives it. */
  cleanup(): Promise<void>;
}

/** How long the box waits for an agent, a window or a line: real panes on a busy 2-core machine. */
export const WAIT = { timeoutMs: 15_000, everyMs: 25 } as const;

/**
 * Orange as it runs a pull request's reactions: the real tmux plugin on a tmux server of the box's
 * own (`-L`), whose agents are `recording-agent.sh` in real panes; the github plugin on a stand-in
 * gh (a script answering from a JSON file and recording its argv; a merge it accepts is pushed to
 * the bare origin, as GitHub's would be); a project that is a clone of that origin, each task in a
 * worktree of it; the reactions plugin; a notifier recording what it gets. Workspace bookkeeping
 * (acquire, release, spawn_next) is a no-op: the tasks' worktrees are made here.
 */
export async function reactionsBox(options: ReactionsOptionsInput = {}): Promise<ReactionsBox> {
  delete process.env.TMUX;
  delete process.env.TMUX_PANE;
  const root = await tempDir('reactions');
  try {
    return await openBox(root, options);
  } catch (error) {
    // Nothing runs yet (tmux starts with the first task): the folder is all there is to remove.
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

async function openBox(root: string, options: ReactionsOptionsInput): Promise<ReactionsBox> {
  const server = TmuxServer.fresh('reactions');
  const origin = join(root, 'origin.git');
  const repo = join(root, 'repo');
  const records = join(root, 'agents');
  await makeOrigin(origin, repo);

  const stand = await standInGh(root);
  const ghBin = join(root, 'gh');
  await writeFile(
    ghBin,
    `#!/bin/sh
${JSON.stringify(stand.bin)} "$@"; code=$?
if [ "$code" -eq 0 ] && [ "$1" = pr ] && [ "$2" = merge ]; then git push --quiet origin HEAD:refs/heads/main >&2 || exit 1; fi
exit "$code"
`,
  );
  await chmod(ghBin, 0o755);

  const notifications: Notification[] = [];
  const support: OrangePlugin = {
    name: 'support',
    apply(orange) {
      orange.notifications.register({ name: 'recorder', send: async (n) => void notifications.push(n) });
      orange.registerHarness({ name: 'recording', installed: async () => true, excludes: [], command: () => ({ argv: ['sh', AGENT], env: { AGENT_RECORDS: records } }) });
    },
  };
  const orange = await Orange.create(
    {
      defaults: false,
      harness: 'recording',
      plugins: [
        noopActions({ except: ['spawn_agent', 'spawn_reviewer', 'kill_session', 'kill_reviewer', 'notify_worker', 'delete_remote_branch'] }),
        tmux({ socketName: server.socket, submitDelayMs: 50, transcripts: false }),
        github({ ghBin }),
        reactions(options),
        support,
      ],
    },
    { paths: new OrangePaths(join(root, 'home')) },
  );
  await orange.projects.add({ name: 'app', path: repo, default_branch: 'main' });

  const starts = async (ref: TaskRef): Promise<AgentStart[]> => {
    const text = await readFile(join(records, ref.id, 'starts'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [role = '', spawn = '', pid = ''] = line.split(' ');
        return { role, spawn, pid: Number(pid) };
      });
  };
  const started = (ref: TaskRef, role: string, count = 1) =>
    waitFor(`start ${count} of the ${role} of task ${ref.id} (recorded by its agent)`, async () => (await starts(ref)).filter((s) => s.role === role).length >= count, WAIT);
  const workerTarget = async (ref: TaskRef) => {
    const session = (await orange.store.read(ref.project, ref.id)).meta.tmux_session;
    if (!session) throw new Error(`task ${ref.id} has no tmux session recorded`);
    return `=${session}:=worker`;
  };
  const read = new Map<string, number>();
  let fences = 0;

  return {
    orange,
    notifications,
    origin,
    async task(status = 'reviewing') {
      const id = newTaskId();
      const branch = `feat/${id}`;
      const workspace = join(root, 'worktrees', id);
      await git(repo, 'worktree', 'add', '--quiet', '-b', branch, workspace, 'main');
      await git(workspace, 'commit', '--quiet', '--allow-empty', '-m', 'Add a login form');
      await git(workspace, 'push', '--quiet', 'origin', branch);
      const first = status === 'agent-review' ? 'working' : status;
      await orange.store.create({
        meta: newTaskMeta({ id, project: 'app', branch, status: first, summary: 'Add a login form', pr_url: PR, workspace }),
        body: '## Context\n\nLogin.\n',
      });
      const ref = { project: 'app', id };
      // `orange task respawn`: the tmux plugin starts the worker in the task's session.
      await orange.engine.respawn(ref);
      await started(ref, 'worker');
      if (status === 'agent-review') {
        await orange.engine.writeSection(ref, 'Handoff', 'DONE: the form');
        await orange.engine.transition(ref, 'agent-review');
        await started(ref, 'reviewer');
      }
      return ref;
    },
    async heard(ref) {
      const fence = `${FENCE} ${++fences}]`;
      const target = await workerTarget(ref);
      await server.out('send-keys', '-t', target, '-l', fence);
      await server.out('send-keys', '-t', target, 'Enter');
      const lines = await waitFor(
        `the worker of task ${ref.id} to read the line "${fence}" typed into its pane`,
        async () => {
          const text = await readFile(join(records, ref.id, 'worker.lines'), 'utf8').catch(() => '');
          const all = text.split('\n');
          return all.includes(fence) ? all : null;
        },
        WAIT,
      );
      const from = read.get(ref.id) ?? 0;
      const at = lines.indexOf(fence);
      read.set(ref.id, at + 1);
      return lines.slice(from, at).filter((line) => !line.startsWith(FENCE));
    },
    starts,
    prompt: (ref, spawn) => readFile(join(records, ref.id, `${spawn}.prompt`), 'utf8'),
    async stopWorker(ref) {
      const worker = (await starts(ref)).filter((s) => s.role === 'worker').at(-1);
      if (!worker) throw new Error(`task ${ref.id} has no worker to stop`);
      const window = `${(await orange.store.read(ref.project, ref.id)).meta.tmux_session}:worker`;
      signalProcess(worker.pid, 'SIGTERM');
      await waitFor(
        `the worker window ${window} (agent pid ${worker.pid}) to close`,
        async () => {
          const listed = await server.run('list-windows', '-a', '-F', '#{session_name}:#{window_name}');
          // A server left with no session answers "no current target" until it has exited: not settled yet.
          if (listed.code !== 0) return /no server running|error connecting/i.test(listed.stderr);
          return !listed.stdout.split('\n').includes(window);
        },
        WAIT,
      );
      await waitFor(`the worker of task ${ref.id} (pid ${worker.pid}) to exit`, async () => !processAlive(worker.pid), WAIT);
    },
    async workerPane(ref) {
      const listed = await server.run('list-panes', '-t', await workerTarget(ref), '-F', '#{pane_pid}');
      return listed.code === 0 ? Number(listed.stdout.trim()) : null;
    },
    windows: async () => (await server.windows()).sort(),
    git,
    gh: (answers) => stand.answer(answers),
    ghCalls: () => stand.calls(),
    pass: () => new Monitor(orange).pass(),
    async cleanup() {
      await orange.notifications.settle();
      // Also removes the socket file tmux leaves behind.
      await server.kill();
      // The box's processes: working inside its folder (agents, wrappers) or naming its tmux server.
      const left = await processesEnd(root, [server.socket], { timeoutMs: 10_000 });
      for (const p of left) signalProcess(p.pid, 'SIGKILL');
      await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      if (left.length > 0) throw new Error(`processes outlived the test (killed now): ${left.map((p) => `${p.pid} ${p.args}`).join('; ')}`);
    },
  };
}

/** The reactions' history events of a task: [type, reaction, key]. */
export async function reactionEvents(b: ReactionsBox, id: string): Promise<unknown[][]> {
  return (await b.orange.store.history('app', id)).filter((e) => e.type.startsWith('reaction.')).map((e) => [e.type, e.reaction, e.key]);
}

/** Waits until `ms` have passed since `reaction` last fired, by the clock the plugin reads (its escalateAfter). */
export async function pastEscalation(b: ReactionsBox, id: string, reaction: string, ms: number): Promise<void> {
  const fired = (await b.orange.store.history('app', id)).findLast((e) => e.type === 'reaction.fired' && e.reaction === reaction);
  if (!fired) throw new Error(`${reaction} has not fired for task ${id}`);
  await waitFor(`${ms} ms to pass since ${reaction} fired`, async () => Date.now() - Date.parse(fired.timestamp) > ms, WAIT);
}

// What a worker reads in its terminal: the reactions' lines, and the tmux plugin's notices of the moves they make.
export const CI_LINE = /^\[orange\] CI failed on the pull request \(CI \/ test\)\. .*## Feedback of TASK\.md.*orange task update --status agent-review$/;
export const REVIEW_LINE = /^\[orange\] ana requested changes on the pull request\. .*## Feedback of TASK\.md/;
/** notify_worker's notice for reviewing → working, naming the reaction's reason: the reactions move the task back with it, so the worker reads it first. */
export const BACK_TO_WORKING = /^\[orange\] Back to working: .+\. Read TASK\.md \(## Feedback/;
export const STUCK = /^\[orange\] The task is STUCK/;
export const REVIEW_PASSED = /^\[orange\] Review PASSED/;

/** `gh pr view` output of an open PR with these checks, review decision and latest reviews. */
export function prView(fields: { head?: string; checks?: unknown[]; decision?: string; latestReviews?: unknown[] } = {}): { stdout: string } {
  return {
    stdout: JSON.stringify({
      state: 'OPEN',
      url: PR,
      headRefOid: fields.head ?? 'aaa111',
      reviewDecision: fields.decision ?? '',
      statusCheckRollup: fields.checks ?? [],
      latestReviews: fields.latestReviews ?? [],
    }),
  };
}

export const failedTest = (run = 55) => ({
  __typename: 'CheckRun',
  name: 'test',
  workflowName: 'CI',
  status: 'COMPLETED',
  conclusion: 'FAILURE',
  detailsUrl: `https://github.com/acme/app/actions/runs/${run}/job/${run + 1}`,
});
export const passed = (name: string) => ({ __typename: 'CheckRun', name, workflowName: 'CI', status: 'COMPLETED', conclusion: 'SUCCESS', detailsUrl: `https://github.com/acme/app/actions/runs/1/${name}` });
