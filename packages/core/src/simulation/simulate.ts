import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { OrangeConfig } from '../config/index.js';
import { mergeTask } from '../engine/index.js';
import { OrangeError, TransitionRefused } from '../errors/index.js';
import { Orange } from '../orange.js';
import type { OrangePlugin } from '../plugin/index.js';
import { OrangePaths } from '../store/index.js';
import type { TaskMeta } from '../task/index.js';
import type { WorkflowInput } from '../workflow/index.js';
import { MemoryProjectStore, MemoryTaskStore, SilentLogger } from './memory-stores.js';
import { checkScript, parseScript, type ScriptEvent } from './script.js';
import { simulationStandIns, type SimulationState } from './stand-ins.js';

/** What one script event did, in the order it happened. */
export interface SimulationStep {
  readonly event: string;
  readonly lines: readonly string[];
  /** The task's status after the event. */
  readonly status: string;
}

export interface SimulationResult {
  readonly workflow: string;
  readonly steps: readonly SimulationStep[];
  /** The simulated task's fields at the end. */
  readonly task: TaskMeta;
}

const PROJECT = 'simulation';

export interface SimulationOptions {
  /**
   * The config the workflow runs under (`orange workflow simulate` passes the loaded one): its
   * plugins are applied, so their gates, vetoes and hooks run on the simulated task; their actions
   * and the runtime, workspaces, scm and tracker slots are stand-ins. Without it only the core runs.
   */
  readonly config?: OrangeConfig;
  /** The built-in plugins the config's `defaults` stands for (the CLI's). */
  readonly defaultPlugins?: () => OrangePlugin[];
}

/**
 * Walks `workflow` through a script of events with the real engine on an in-memory task: no tmux,
 * no git, no worktree. The config's plugins run as configured except for their actions (see
 * simulationStandIns); what they write on disk goes to a throwaway home, removed at the end.
 *
 * Gates: `review-pass` / `review-fail` follow the last `review PASS|FAIL`, the other built-in gates
 * pass, a plugin's gate runs for real, and `gate NAME pass|fail` overrides any gate from then on.
 */
export async function simulateWorkflow(workflow: WorkflowInput, script: string, options: SimulationOptions = {}): Promise<SimulationResult> {
  const home = await mkdtemp(join(tmpdir(), 'orange-simulation-'));
  try {
    return await simulateIn(home, workflow, script, options);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

async function simulateIn(home: string, workflow: WorkflowInput, script: string, options: SimulationOptions): Promise<SimulationResult> {
  const events = parseScript(script);
  checkScript(events, workflow);
  const state: SimulationState = { lines: [], ran: [], verdict: null, veto: null, answers: new Map(), failing: new Map() };
  const workspace = join(home, 'workspace');
  const paths = new OrangePaths(join(home, 'orange'));
  const config = options.config;
  const simulation = simulationStandIns(workflow, state, workspace);
  const orange = await Orange.create(
    config ? { ...config, workflow, plugins: [...config.plugins, simulation], logLevel: 'error' } : { defaults: false, workflow, plugins: [simulation], logLevel: 'error' },
    {
      paths,
      store: new MemoryTaskStore(paths),
      projects: new MemoryProjectStore(paths, [{ name: PROJECT, path: workspace, default_branch: 'main', pool_size: 1 }]),
      log: new SilentLogger(),
      // Notifications wait in the throwaway home's outbox: a simulation tells no one.
      notificationDelivery: 'outbox',
      ...(options.defaultPlugins ? { defaultPlugins: options.defaultPlugins } : {}),
    },
  );
  const engine = orange.engine;
  const definition = orange.workflow().definition;
  let ref: { project: string; id: string } | null = null;
  const steps: SimulationStep[] = [];

  const run = async (event: ScriptEvent): Promise<void> => {
    if (event.kind === 'create') {
      if (ref !== null) throw new OrangeError('E_USAGE', 'the script creates the task twice (create must come first, once)');
      const created = await engine.createTask({ project: PROJECT, summary: 'simulated task', ...(event.status ? { status: event.status } : {}) });
      ref = { project: PROJECT, id: created.task.meta.id };
      if (created.queuedReason) state.lines.push(`  created in ${created.task.meta.status}; not started: ${created.queuedReason}`);
      else state.lines.unshift(`  created in ${created.task.meta.status === definition.start && !event.status ? definition.initial : created.task.meta.status}`);
      return;
    }
    switch (event.kind) {
      case 'review':
        state.verdict = event.verdict;
        state.lines.push(`  ## Review: Verdict: ${event.verdict.toUpperCase()}`);
        return;
      case 'gate':
        state.answers.set(event.gate, { pass: event.pass, reason: event.reason });
        state.lines.push(`  gate ${event.gate} ${event.pass ? 'passes' : 'fails'} from now on`);
        return;
      case 'fail':
        state.failing.set(event.action, event.message);
        state.lines.push(`  ${event.action} fails the next time it runs`);
        return;
      case 'veto':
        state.veto = event.reason;
        state.lines.push('  the next transition is vetoed');
        return;
      case 'file':
        await mkdir(dirname(join(workspace, event.path)), { recursive: true });
        await writeFile(join(workspace, event.path), event.text);
        state.lines.push(`  ${event.path} written in the worktree`);
        return;
    }
    if (ref === null) throw new OrangeError('E_USAGE', `"${event.kind}" needs the task; create comes first`);
    switch (event.kind) {
      case 'spawn':
        await engine.spawn(ref, { actor: 'person' });
        return;
      case 'request':
        // The agent's request (`orange task update --status`): it takes only the agents' moves.
        await engine.request(ref, { status: event.status, actor: 'agent' });
        return;
      case 'merge':
        // `orange task merge`: every check and veto first, then the stand-in scm's merge, then done.
        await mergeTask(orange, ref, { strategy: 'ff', local: false });
        return;
      case 'move':
        // A person's move (`orange task move`, `merge`, `cancel`): it takes only the people's.
        await engine.transition(ref, event.status, { cause: 'request', actor: 'person' });
        return;
      case 'exit': {
        const outcome = await engine.agentExited(ref, event.role, null, 'exit');
        const { decision } = outcome;
        if (decision.kind === 'ignore' && decision.reason === 'this agent exit was already handled') state.lines.unshift(`  no ${event.role} is running: nothing happens`);
        else state.lines.unshift(`  ${event.role} exited: ${decision.kind}${'to' in decision ? ` to ${decision.to}` : ''} (${decision.reason})`);
        return;
      }
      case 'respawn': {
        const task = await orange.store.read(ref.project, ref.id);
        const role = orange.workflow().state(task.meta.status)?.agent ?? 'worker';
        if (task.meta[role === 'worker' ? 'worker_spawn' : 'reviewer_spawn'] !== null) {
          throw new OrangeError('E_NOT_ALLOWED', `the ${role} of the task is still running`);
        }
        await engine.respawn(ref);
        return;
      }
      case 'set':
        await orange.store.update(ref.project, ref.id, { [event.field]: event.value } as Partial<TaskMeta>);
        state.lines.push(`  ${event.field} = ${JSON.stringify(event.value)}`);
        return;
    }
  };

  // Without an explicit `create`, the task is created just before the first event that needs it:
  // answers given before (gate, review, fail, veto) already apply to its start.
  const setup = new Set<ScriptEvent['kind']>(['gate', 'review', 'fail', 'veto', 'file']);
  const first = events.findIndex((e) => !setup.has(e.event.kind));
  const at = first === -1 ? events.length : first;
  const all = events.some((e) => e.event.kind === 'create')
    ? events
    : [...events.slice(0, at), { text: 'create', event: { kind: 'create', status: null } as ScriptEvent }, ...events.slice(at)];
  for (const step of all) {
    state.lines = [];
    state.ran = [];
    try {
      await run(step.event);
    } catch (error) {
      if (error instanceof OrangeError && error.code === 'E_USAGE') throw error;
      // A refusal by the map, a guard, a gate or a veto was shown by transitionRefused.
      if (!(error instanceof TransitionRefused)) {
        if (!(error instanceof OrangeError)) throw error;
        state.lines.push(`  refused: ${error.message}`);
      }
    }
    if (state.ran.length) state.lines.push(`  actions: ${state.ran.join(', ')}`);
    const status = ref === null ? '(no task yet)' : (await orange.store.read(PROJECT, (ref as { id: string }).id)).meta.status;
    steps.push({ event: step.text, lines: state.lines, status });
  }
  const final = ref === null ? null : await orange.store.read(PROJECT, (ref as { id: string }).id);
  if (final === null) throw new OrangeError('E_USAGE', 'the script never created the task');
  return { workflow: definition.name, steps, task: final.meta };
}
