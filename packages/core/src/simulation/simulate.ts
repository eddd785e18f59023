import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORE_ACTIONS } from '../plugin/index.js';
import { OrangeError, TransitionRefused } from '../errors/index.js';
import type { Gate, GateResult } from '../workflow/index.js';
import { workflowActions } from '../plugin/index.js';
import { Orange } from '../orange.js';
import type { OrangePlugin } from '../plugin/index.js';
import { OrangePaths } from '../store/index.js';
import { newSpawnId } from '../store/index.js';
import type { TaskMeta } from '../task/index.js';
import type { WorkflowInput } from '../workflow/index.js';
import { MemoryProjectStore, MemoryTaskStore, SilentLogger } from './memory-stores.js';
import { parseScript, type ScriptEvent } from './script.js';

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
const PASS: GateResult = { ok: true };

/**
 * Walks `workflow` through a script of events with the real engine, on in-memory stores, with stub
 * actions and gates answered from the script: no tmux, no git, no worktrees, no file written.
 *
 * Stubs behave like the built-in plugins where the engine depends on it (`spawn_agent` records a
 * worker spawn, `kill_session` clears it, `acquire_workspace` sets a workspace, …); other actions
 * only show that they ran. Gates: `review-pass` / `review-fail` follow the last `review PASS|FAIL`,
 * every other gate passes, and `gate NAME pass|fail` overrides any gate from then on.
 */
export async function simulateWorkflow(workflow: WorkflowInput, script: string): Promise<SimulationResult> {
  const events = parseScript(script);
  let lines: string[] = [];
  let ran: string[] = [];
  let verdict: 'pass' | 'fail' | null = null;
  let veto: string | null = null;
  const answers = new Map<string, { pass: boolean; reason: string | null }>();
  const failing = new Map<string, string | null>();

  const gate = (name: string): Gate => () => {
    const fixed = answers.get(name);
    if (fixed) return fixed.pass ? PASS : { ok: false, reason: fixed.reason ?? `gate ${name} fails (script)` };
    if (name === 'review-pass' || name === 'review-fail') {
      if (verdict === null) return { ok: false, reason: 'no review yet (script: review PASS|FAIL)' };
      const wanted = name === 'review-pass' ? 'pass' : 'fail';
      return verdict === wanted ? PASS : { ok: false, reason: `the review says ${verdict.toUpperCase()}` };
    }
    return PASS;
  };

  const simulation: OrangePlugin = {
    name: 'simulation',
    apply(orange) {
      for (const action of workflowActions(workflow).filter((a) => !CORE_ACTIONS.includes(a))) {
        orange.hooks.actions.for(action).tapPromise('simulation', async (ctx) => {
          ran.push(action);
          if (failing.has(action)) {
            const message = failing.get(action);
            failing.delete(action);
            throw new Error(message ?? 'failed by the script');
          }
          const meta = ctx.task.meta;
          switch (action) {
            case 'acquire_workspace':
              if (!meta.workspace) await ctx.update({ workspace: `/simulation/workspace` });
              break;
            case 'release_workspace':
              await ctx.update({ workspace: null });
              break;
            case 'spawn_agent':
              if (meta.worker_spawn === null) await ctx.update({ worker_spawn: newSpawnId() });
              break;
            case 'spawn_reviewer':
              if (meta.reviewer_spawn === null) await ctx.update({ reviewer_spawn: newSpawnId() });
              break;
            case 'notify_worker':
              // The tmux plugin starts a worker when there is none to tell.
              if (meta.worker_spawn === null) {
                await ctx.update({ worker_spawn: newSpawnId() });
                lines.push('  (no worker to notify: one is started)');
              }
              break;
            case 'kill_session':
              await ctx.update({ worker_spawn: null, reviewer_spawn: null });
              break;
            case 'kill_reviewer':
              await ctx.update({ reviewer_spawn: null });
              break;
          }
        });
      }
      // `merge` is the core's own action: it runs for real, through this stand-in for the scm slot.
      orange.provide('scm', {
        name: 'simulation',
        async merge(task) {
          ran.push('merge');
          if (failing.has('merge')) {
            const message = failing.get('merge');
            failing.delete('merge');
            return { merged: false, message: message ?? 'merge failed (script)' };
          }
          return { merged: true, message: `merged ${task.meta.branch} (simulated)` };
        },
        async createPullRequest() {
          return { url: 'https://example.invalid/simulated/pull/1' };
        },
        async pullRequestState() {
          return null;
        },
      });
      const gates = new Set(workflow.transitions.flatMap((t) => (t.gate ? [t.gate] : [])));
      for (const name of gates) orange.registerGate(name, gate(name));
      orange.hooks.beforeTransition.tapPromise('simulation', async () => {
        const reason = veto;
        veto = null;
        return reason ?? undefined;
      });
      orange.hooks.transitionRefused.tapPromise('simulation', async (e) => {
        lines.push(`  refused ${e.from} → ${e.to} (${e.check}): ${e.reason}`);
      });
      orange.hooks.afterTransition.tapPromise('simulation', async (e) => {
        lines.push(`  ${e.from} → ${e.to} (${e.cause})${ran.length ? `; actions: ${ran.join(', ')}` : ''}`);
        ran = [];
      });
      orange.hooks.hookFailed.tapPromise('simulation', async (e) => {
        lines.push(`  action ${e.action} failed: ${e.error.message} (the task is flagged for attention)`);
      });
      orange.hooks.crash.tapPromise('simulation', async (e) => {
        lines.push(`  crash ${e.crashCount} in ${e.status}: ${e.reason}`);
      });
    },
  };

  const paths = new OrangePaths(join(tmpdir(), 'orange-simulation'));
  const orange = await Orange.create(
    { defaults: false, workflow, plugins: [simulation], logLevel: 'error' },
    {
      paths,
      store: new MemoryTaskStore(paths),
      projects: new MemoryProjectStore(paths, [{ name: PROJECT, path: '/simulation', default_branch: 'main', pool_size: 1 }]),
      log: new SilentLogger(),
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
      if (created.queuedReason) lines.push(`  created in ${created.task.meta.status}; not started: ${created.queuedReason}`);
      else lines.unshift(`  created in ${created.task.meta.status === definition.start && !event.status ? definition.initial : created.task.meta.status}`);
      return;
    }
    switch (event.kind) {
      case 'review':
        verdict = event.verdict;
        lines.push(`  ## Review: Verdict: ${event.verdict.toUpperCase()}`);
        return;
      case 'gate':
        answers.set(event.gate, { pass: event.pass, reason: event.reason });
        lines.push(`  gate ${event.gate} ${event.pass ? 'passes' : 'fails'} from now on`);
        return;
      case 'fail':
        failing.set(event.action, event.message);
        lines.push(`  ${event.action} fails the next time it runs`);
        return;
      case 'veto':
        veto = event.reason;
        lines.push('  the next transition is vetoed');
        return;
    }
    if (ref === null) throw new OrangeError('E_USAGE', `"${event.kind}" needs the task; create comes first`);
    switch (event.kind) {
      case 'spawn':
        await engine.spawn(ref);
        return;
      case 'request':
        await engine.request(ref, { status: event.status });
        return;
      case 'exit': {
        const outcome = await engine.agentExited(ref, event.role, null, 'exit');
        const { decision } = outcome;
        if (decision.kind === 'ignore' && decision.reason === 'this agent exit was already handled') lines.unshift(`  no ${event.role} is running: nothing happens`);
        else lines.unshift(`  ${event.role} exited: ${decision.kind}${'to' in decision ? ` to ${decision.to}` : ''} (${decision.reason})`);
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
        lines.push(`  ${event.field} = ${JSON.stringify(event.value)}`);
        return;
    }
  };

  // Without an explicit `create`, the task is created just before the first event that needs it:
  // answers given before (gate, review, fail, veto) already apply to its start.
  const setup = new Set<ScriptEvent['kind']>(['gate', 'review', 'fail', 'veto']);
  const first = events.findIndex((e) => !setup.has(e.event.kind));
  const at = first === -1 ? events.length : first;
  const all = events.some((e) => e.event.kind === 'create')
    ? events
    : [...events.slice(0, at), { text: 'create', event: { kind: 'create', status: null } as ScriptEvent }, ...events.slice(at)];
  for (const step of all) {
    lines = [];
    ran = [];
    try {
      await run(step.event);
    } catch (error) {
      if (error instanceof OrangeError && error.code === 'E_USAGE') throw error;
      // A refusal by the map, a guard, a gate or a veto was shown by transitionRefused.
      if (!(error instanceof TransitionRefused)) {
        if (!(error instanceof OrangeError)) throw error;
        lines.push(`  refused: ${error.message}`);
      }
    }
    if (ran.length) lines.push(`  actions: ${ran.join(', ')}`);
    const status = ref === null ? '(no task yet)' : (await orange.store.read(PROJECT, (ref as { id: string }).id)).meta.status;
    steps.push({ event: step.text, lines, status });
  }
  const final = ref === null ? null : await orange.store.read(PROJECT, (ref as { id: string }).id);
  if (final === null) throw new OrangeError('E_USAGE', 'the script never created the task');
  return { workflow: definition.name, steps, task: final.meta };
}
