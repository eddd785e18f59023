import { mkdir } from 'node:fs/promises';
import type { HookInterceptor } from 'tapable';
import { OrangeError } from '../errors/index.js';
import { builtinGates, type Gate, type GateResult, type WorkflowInput } from '../workflow/index.js';
import { CORE_ACTIONS, workflowActions, type ActionContext, type Orange, type OrangePlugin } from '../plugin/index.js';
import { newSpawnId } from '../store/index.js';

/** What the script has said so far, and what the stand-ins report back to the step being run. */
export interface SimulationState {
  /** Lines the current step shows. */
  lines: string[];
  /** Actions run since the last line that named them. */
  ran: string[];
  verdict: 'pass' | 'fail' | null;
  veto: string | null;
  readonly answers: Map<string, { readonly pass: boolean; readonly reason: string | null }>;
  readonly failing: Map<string, string | null>;
}

const PASS: GateResult = { ok: true };

/** Taps that really run in a simulation: the core's own actions (merge through the stand-in scm) and the stand-ins. */
const REAL_TAPS = new Set(['core', 'simulation']);

/** The actions the engine runs outside a workflow's transitions (a respawn). */
const RESPAWN_ACTIONS = ['acquire_workspace', 'spawn_agent', 'spawn_reviewer'];

/**
 * The plugin a simulation adds after the config's: it answers the built-in review gates from the
 * script, turns every other plugin's action into a recorded no-op (tmux, worktrees, git, a team's
 * own actions all stay untouched), fills the runtime, workspaces, scm and tracker slots with
 * stand-ins, and writes what happens into the state's lines. The config's gates and vetoes stay real.
 *
 * Stand-in actions behave like the built-in plugins where the engine depends on it (`spawn_agent`
 * records a worker spawn, `kill_session` clears it, `acquire_workspace` gives the task `workspace`,
 * an empty folder a team's gate may look into, …).
 */
export function simulationStandIns(workflow: WorkflowInput, state: SimulationState, workspace: string): OrangePlugin {
  return {
    name: 'simulation',
    async apply(orange) {
      await mkdir(workspace, { recursive: true });
      const actions = [...new Set([...workflowActions(workflow), ...RESPAWN_ACTIONS])].filter((a) => !CORE_ACTIONS.includes(a));
      for (const action of actions) orange.hooks.actions.for(action).tapPromise('simulation', (ctx) => standIn(action, ctx, state, workspace));
      // The config's plugins tapped their actions already: their taps stay (the workflow still
      // finds its actions provided) but do nothing.
      const inert: HookInterceptor<[ActionContext], void> = { name: 'simulation', register: (tap) => (REAL_TAPS.has(tap.name) ? tap : doNothing(tap)) };
      for (const action of actions) orange.hooks.actions.for(action).intercept(inert);
      orange.hooks.actions.intercept({ factory: (_name, hook) => (hook.intercept(inert), hook) });
      // The plugins behind the slots (tmux, the worktree pool, GitHub) are the world a simulation
      // leaves alone: every tap of theirs does nothing (the pool's reservation, say, adds worktrees).
      const worldly = new Set(SLOTS.flatMap((slot) => orange.maybeSlot(slot)?.name ?? []));
      const leaveAlone: HookInterceptor<unknown[], unknown> = { name: 'simulation', register: (tap) => (worldly.has(tap.name) ? doNothing(tap) : tap) };
      for (const hook of Object.values(orange.hooks) as Interceptable[]) if ('taps' in hook) hook.intercept(leaveAlone);
      provideSlots(orange, state);
      // Gates the config's plugins registered run for real; the built-in review gates and any gate
      // nothing registers are answered from the script.
      const gates = new Set(workflow.transitions.flatMap((t) => (t.gate ? [t.gate] : [])));
      for (const name of gates) {
        const real = SCRIPTED_GATES.has(name) ? undefined : orange.gates.get(name);
        orange.registerGate(name, scriptedGate(name, state, real));
      }
      orange.hooks.beforeTransition.tapPromise('simulation', async () => {
        const reason = state.veto;
        state.veto = null;
        return reason ?? undefined;
      });
      orange.hooks.transitionRefused.tapPromise('simulation', async (e) => {
        state.lines.push(`  refused ${e.from} → ${e.to} (${e.check}): ${e.reason}`);
      });
      orange.hooks.afterTransition.tapPromise('simulation', async (e) => {
        state.lines.push(`  ${e.from} → ${e.to} (${e.cause})${state.ran.length ? `; actions: ${state.ran.join(', ')}` : ''}`);
        state.ran = [];
      });
      orange.hooks.hookFailed.tapPromise('simulation', async (e) => {
        state.lines.push(`  action ${e.action} failed: ${e.error.message} (the task is flagged for attention)`);
      });
      orange.hooks.crash.tapPromise('simulation', async (e) => {
        state.lines.push(`  crash ${e.crashCount} in ${e.status}: ${e.reason}`);
      });
    },
  };
}

const SLOTS = ['runtime', 'workspaces', 'scm', 'tracker'] as const;

/** Any hook of the bus, as far as a stand-in interceptor cares. */
interface Interceptable {
  intercept(interceptor: HookInterceptor<unknown[], unknown>): void;
}

/** A tap that does nothing, in the calling style it was made for. */
function doNothing<T extends { type: 'sync' | 'async' | 'promise'; fn: Function }>(tap: T): T {
  const fn = tap.type === 'promise' ? async () => undefined : tap.type === 'async' ? (...args: unknown[]) => (args.at(-1) as () => void)() : () => undefined;
  return { ...tap, fn };
}

/** The built-in gates read sections a script does not write: they pass, or follow `review PASS|FAIL`. */
const SCRIPTED_GATES = new Set(Object.keys(builtinGates));

/** A gate as the script says (`gate NAME pass|fail` wins), else the real one, else a pass. */
function scriptedGate(name: string, state: SimulationState, real: Gate | undefined): Gate {
  return (ctx) => {
    const fixed = state.answers.get(name);
    if (fixed) return fixed.pass ? PASS : { ok: false, reason: fixed.reason ?? `gate ${name} fails (script)` };
    if (name === 'review-pass' || name === 'review-fail') {
      if (state.verdict === null) return { ok: false, reason: 'no review yet (script: review PASS|FAIL)' };
      const wanted = name === 'review-pass' ? 'pass' : 'fail';
      return state.verdict === wanted ? PASS : { ok: false, reason: `the review says ${state.verdict.toUpperCase()}` };
    }
    return real ? real(ctx) : PASS;
  };
}

async function standIn(action: string, ctx: ActionContext, state: SimulationState, workspace: string): Promise<void> {
  state.ran.push(action);
  if (state.failing.has(action)) {
    const message = state.failing.get(action);
    state.failing.delete(action);
    throw new Error(message ?? 'failed by the script');
  }
  const meta = ctx.task.meta;
  switch (action) {
    case 'acquire_workspace':
      if (!meta.workspace) await ctx.update({ workspace });
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
      // The tmux plugin starts a worker for a prompt when there is none to tell.
      if (meta.worker_spawn === null && ctx.workflow.state(ctx.to)?.agent === 'worker' && ctx.workflow.state(ctx.to)?.prompt !== undefined) {
        await ctx.update({ worker_spawn: newSpawnId() });
        state.lines.push('  (no worker to notify: one is started)');
      }
      break;
    case 'kill_session':
      await ctx.update({ worker_spawn: null, reviewer_spawn: null });
      break;
    case 'kill_reviewer':
      await ctx.update({ reviewer_spawn: null });
      break;
  }
}

/** Stand-ins for every slot: nothing runs, nothing is alive, every merge is simulated. */
function provideSlots(orange: Orange, state: SimulationState): void {
  orange.provide('runtime', {
    name: 'simulation',
    snapshot: async () => ({ isAlive: () => false, sessions: [], processes: 0 }),
    attach: async () => undefined,
    sessionName: (task) => `simulation/${task.id}`,
    killSession: async () => false,
  });
  orange.provide('workspaces', { name: 'simulation', init: async () => [], list: async () => [], gc: async () => ({ freed: [] }) });
  // `merge` is the core's own action and `task merge`'s: both run for real, through this stand-in.
  orange.provide('scm', {
    name: 'simulation',
    async merge(task) {
      state.ran.push('merge');
      if (state.failing.has('merge')) {
        const message = state.failing.get('merge');
        state.failing.delete('merge');
        return { merged: false, message: message ?? 'merge failed (script)' };
      }
      return { merged: true, message: `merged ${task.meta.branch} (simulated)` };
    },
    createPullRequest: async () => ({ url: 'https://example.invalid/simulated/pull/1' }),
    pullRequestState: async () => null,
  });
  orange.provide('tracker', {
    name: 'simulation',
    issue: async () => {
      throw new OrangeError('E_NO_PROVIDER', 'a simulation reads no issues');
    },
    closingLine: () => '',
  });
}
