import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { newSpawnId, OrangeError, pruneTranscripts, TRANSCRIPTS_KEPT, writeFileAtomic, type ActionContext, type AgentRole, type HarnessRequest } from '@orange/core';
import { agentEnv } from './agent-env.js';
import { ensureOrangeShim, type AgentClient } from './orange-shim.js';
import { isAgentWindow, isReviewerWindow, sessionName, sessionTarget, WORKER_WINDOW, windowName, windowTarget } from './session-name.js';
import type { TmuxClient } from './tmux-client.js';
import { escapeTmuxFormat } from './tmux-escape.js';
import { killVerified } from './tmux-kill.js';

/** Bytes of agent argv + environment above which they travel in a spec file (tmux's limit is ~16 KB). */
const INLINE_COMMAND_LIMIT = 12 * 1024;

function byteLength(args: readonly string[]): number {
  return args.reduce((sum, arg) => sum + Buffer.byteLength(arg) + 1, 0);
}

/** What spawning needs besides the action context. */
export interface SpawnSetup {
  readonly client: TmuxClient;
  readonly socketName: string | undefined;
  /** The built exit wrapper (`dist/agent-wrapper.cjs`). */
  readonly wrapperPath: string;
  /** Whether agents' terminal output is kept (the wrapper keeps it, capped at `maxBytes`), or null for none. */
  readonly transcripts: { readonly maxBytes: number } | null;
  /** What the agent's `orange` is (the `agentClient` option). */
  readonly agentClient: AgentClient;
}

/** What a spawn did: the spawn id, or null when the agent was already running. */
export interface SpawnOutcome {
  readonly spawnId: string | null;
  readonly session: string;
  readonly window: string;
}

/**
 * Starts the agent of `role` in the task's session (created if needed), wrapped so its exit is
 * reported. A live window with a recorded spawn is left alone (idempotent); a window with no
 * recorded spawn (its agent's exit was already handled) or a dead pane kept by `remain-on-exit`
 * is replaced.
 */
export async function spawnAgent(ctx: ActionContext, role: AgentRole, setup: SpawnSetup, respawn: boolean): Promise<SpawnOutcome> {
  const { client } = setup;
  const meta = ctx.task.meta;
  const workspace = meta.workspace;
  if (!workspace) {
    throw new OrangeError('E_RUNTIME', `task ${meta.id} has no workspace, so its ${role} cannot start (acquire_workspace must run first)`);
  }
  const field = role === 'worker' ? 'worker_spawn' : 'reviewer_spawn';
  const windows = await client.listWindows();
  const sessions = new Set(windows.map((w) => w.session));
  // A renamed branch keeps its agents in the session recorded at spawn time.
  const session = meta.tmux_session && sessions.has(meta.tmux_session) ? meta.tmux_session : sessionName(meta);
  const recorded = meta[field];
  const running = recorded === null ? undefined : windows.find((w) => w.session === session && !w.dead && isAgentWindow(w.window, meta, role));
  if (running) {
    ctx.log.debug('agent already running', { task: meta.id, role, session, window: running.window });
    return { spawnId: null, session, window: running.window };
  }
  // One agent of a role at a time: a window left by an earlier one (its exit already handled, or a
  // dead pane kept by remain-on-exit) goes first. For the worker, two windows of one name would
  // also make every exact target ambiguous.
  const stale = windows.filter((w) => w.session === session && (role === 'worker' ? w.window === WORKER_WINDOW : isReviewerWindow(w.window, null)));
  for (const old of stale) await killVerified(client, 'window', windowTarget(session, old.window));
  // Killing a session's last window ends the session.
  const sessionAlive = windows.some((w) => w.session === session && !stale.includes(w));
  const spawnId = newSpawnId();
  const window = windowName(meta, role, spawnId);

  const orange = ctx.orange;
  const harness = await orange.resolveHarness(meta, role);
  const prompt = await ctx.prompt(role, respawn);
  const request: HarnessRequest = {
    task: meta,
    role,
    prompt,
    respawn,
    effort: role === 'worker' ? meta.effort : meta.review_effort,
    workspace,
  };
  await harness.prepare?.(workspace, request);
  const command = harness.command(request);
  if (command.argv.length === 0) throw new OrangeError('E_HARNESS', `harness ${harness.name} returned an empty command`);

  if (orange.cliEntry) await ensureOrangeShim(orange.paths, orange.cliEntry, setup.agentClient);
  // The agent's identity: its calls show the spawn id with this secret; Orange keeps only its hash.
  const secret = await orange.store.identities.issue(meta.project, meta.id, role, spawnId);
  // A runtime plugin may wrap the command (a container); the wrapper below still reports its exit.
  const launched = await orange.hooks.agentCommand.promise(
    { argv: command.argv, env: agentEnv({ task: meta, role, prompt, workspace, spawnId, secret, paths: orange.paths, socketName: setup.socketName, harnessEnv: command.env }), cwd: workspace },
    { orange, task: ctx.task, run: { kind: 'terminal', role, spawnId, internal: harness.internal === true } },
  );
  if (launched.argv.length === 0) throw new OrangeError('E_HARNESS', `the agentCommand hook left the ${role}'s command empty`);
  const env = launched.env;
  const transcript = setup.transcripts ? orange.paths.transcriptFile(meta.project, meta.id, role, spawnId) : null;
  if (transcript) {
    await mkdir(orange.paths.taskLogsDir(meta.project, meta.id), { recursive: true, mode: 0o700 });
    await pruneTranscripts(orange.paths, meta.project, meta.id, role, TRANSCRIPTS_KEPT - 1);
  }
  const wrapper = [
    process.execPath,
    setup.wrapperPath,
    ...(orange.cliEntry ? ['--cli', orange.cliEntry] : []),
    '--project', meta.project,
    '--task', meta.id,
    '--role', role,
    '--spawn', spawnId,
    ...(transcript && setup.transcripts ? ['--transcript', transcript, '--transcript-max', String(setup.transcripts.maxBytes), '--tmux', client.bin] : []),
  ];
  let envArgs = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  let agentArgs = ['--', ...launched.argv];
  if (byteLength([...envArgs, ...agentArgs]) > INLINE_COMMAND_LIMIT) {
    // tmux refuses a command line over 16 KB ("command too long"); a long prompt goes by file.
    const specFile = join(orange.paths.runDir, 'spawns', `${spawnId}.json`);
    await writeFileAtomic(specFile, JSON.stringify({ argv: launched.argv, env }));
    envArgs = [];
    agentArgs = ['--spec', specFile];
  }
  const place = ['-n', window, '-c', escapeTmuxFormat(launched.cwd), ...envArgs, '--', ...wrapper, ...agentArgs];
  const newWindow = ['new-window', '-d', '-t', `${sessionTarget(session)}:`, ...place];
  // A tmux client outside any session hands the pane its own PATH, overriding `-e PATH=…`.
  const clientEnv: Record<string, string> = env.PATH === undefined ? {} : { PATH: env.PATH };
  const newSession = ['new-session', '-d', '-s', session, ...place];
  const [first, second] = sessionAlive ? [newWindow, newSession] : [newSession, newWindow];
  const started = await client.attempt(first, clientEnv);
  if (!started.ok) {
    // Another process created or ended the session since the listing: try the other way once.
    if (!/duplicate session|can't find session|no server running|error connecting/i.test(started.stderr)) {
      throw new OrangeError('E_RUNTIME', `tmux ${first[0]} failed: ${started.stderr.trim() || 'unknown error'}`);
    }
    const retried = await client.attempt(second, clientEnv);
    if (!retried.ok) throw new OrangeError('E_RUNTIME', `tmux ${second[0]} failed: ${retried.stderr.trim().split('\n')[0] || 'unknown error'}`);
  }

  const task = await ctx.update({ [field]: spawnId, tmux_session: session });
  await ctx.record({ type: 'agent.spawned', role, spawn: spawnId, session, window, harness: harness.name, ...(transcript ? { transcript } : {}) });
  ctx.log.info('agent spawned', { task: meta.id, role, spawn: spawnId, session, window, harness: harness.name });
  try {
    await orange.hooks.agentSpawned.promise({ orange, task, role, spawnId });
  } catch (error) {
    ctx.log.error('lifecycle hook failed', { hook: 'agentSpawned', error: error instanceof Error ? error.message : String(error) });
  }
  return { spawnId, session, window };
}
