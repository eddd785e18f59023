import { WorkflowInvalid } from '../errors/index.js';
import type { AgentRole, TaskMeta } from '../task/index.js';
import { evaluateGuard, guardsOverlap, parseGuard, type Guard } from './guard.js';
import {
  WorkflowSchema,
  type Actor,
  type ExitRule,
  type PromptRef,
  type StateDefinition,
  type TransitionDefinition,
  type WorkflowDefinition,
  type WorkflowInput,
} from './definition.js';

/** A transition with its guard parsed once at load, and who may take it settled (`by`). */
export interface Transition extends Omit<TransitionDefinition, 'by'> {
  readonly parsedGuard: Guard | null;
  readonly by: readonly Actor[];
}

/** Who may take a transition: as written, else Orange for a crash one and a person for a force one. */
function actorsOf(t: TransitionDefinition): readonly Actor[] {
  if (t.crash) return ['orange'];
  if (t.force) return ['person'];
  return t.by ?? [];
}

/** What a workflow may name, and so what validation checks against. Omit a set to skip that check. */
export interface WorkflowVocabulary {
  readonly gates?: ReadonlySet<string>;
  readonly actions?: ReadonlySet<string>;
}

/** A validated workflow: the definition plus fast lookups. Immutable. */
export class Workflow {
  readonly name: string;
  readonly definition: WorkflowDefinition;
  readonly transitions: readonly Transition[];
  private readonly byPair = new Map<string, Transition[]>();

  private constructor(definition: WorkflowDefinition) {
    this.definition = definition;
    this.name = definition.name;
    this.transitions = definition.transitions.map((t) => {
      const parsed = t.guard === undefined ? null : parseGuard(t.guard);
      return Object.freeze({ ...t, by: actorsOf(t), parsedGuard: parsed && parsed.ok ? parsed.guard : null });
    });
    for (const t of this.transitions) {
      const key = pairKey(t.from, t.to);
      this.byPair.set(key, [...(this.byPair.get(key) ?? []), t]);
    }
  }

  /** Validates a definition, listing every problem at once; throws WorkflowInvalid. */
  static load(input: WorkflowInput | WorkflowDefinition, vocabulary: WorkflowVocabulary = {}): Workflow {
    const parsed = WorkflowSchema.safeParse(input);
    const label = typeof (input as { name?: unknown }).name === 'string' ? (input as { name: string }).name : '(unnamed)';
    if (!parsed.success) {
      throw new WorkflowInvalid(
        label,
        parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'definition'}: ${i.message}`),
      );
    }
    const problems = validateWorkflow(parsed.data, vocabulary);
    if (problems.length > 0) throw new WorkflowInvalid(parsed.data.name, problems);
    return new Workflow(parsed.data);
  }

  get states(): readonly string[] {
    return Object.keys(this.definition.states);
  }

  get start(): string {
    return this.definition.start;
  }

  get initial(): string {
    return this.definition.initial;
  }

  state(name: string): StateDefinition | undefined {
    return this.definition.states[name];
  }

  isTerminal(status: string): boolean {
    return this.definition.states[status]?.terminal === true;
  }

  /** Active = an agent is expected to be working on it (not pending, not terminal). */
  isActive(status: string): boolean {
    const state = this.definition.states[status];
    return state !== undefined && !state.terminal && status !== this.definition.initial;
  }

  /** Transitions for a pair; `crash` selects the exit monitor's crash transitions instead of normal ones. */
  between(from: string, to: string, crash = false): Transition[] {
    return (this.byPair.get(pairKey(from, to)) ?? []).filter((t) => t.crash === crash && !t.force);
  }

  /** The transitions for a pair that only a person's explicit force takes. */
  forced(from: string, to: string): Transition[] {
    return (this.byPair.get(pairKey(from, to)) ?? []).filter((t) => t.force);
  }

  /** The statuses only a person's explicit force reaches from `status` (never offered as targets). */
  forcedTargets(status: string): string[] {
    return this.transitions.filter((t) => t.from === status && t.force).map((t) => t.to);
  }

  /** The ordinary transitions out of a status (what an agent or a person may ask for). */
  from(status: string): Transition[] {
    return this.transitions.filter((t) => t.from === status && !t.crash && !t.force);
  }

  /**
   * The agents a task should have running now: none unless it is active; else its status's agent
   * and any with a recorded spawn. Not the agent of a status that gives it no work on entry and
   * only takes one back on demand (the default workflow's `reviewing`: no prompt, a respawn prompt):
   * a person's move is due there, so its absence is no failure (a task created for a review never
   * had one; a worker that left while waiting is started again when it is needed).
   */
  expectedAgents(meta: Pick<TaskMeta, 'status' | 'worker_spawn' | 'reviewer_spawn'>): AgentRole[] {
    if (!this.isActive(meta.status)) return [];
    const state = this.definition.states[meta.status];
    const onDemand = state?.prompt === undefined && state?.respawnPrompt !== undefined;
    const responsible = onDemand ? null : (state?.agent ?? null);
    const spawns: Record<AgentRole, string | null> = { worker: meta.worker_spawn, reviewer: meta.reviewer_spawn };
    return (['worker', 'reviewer'] as const).filter((role) => spawns[role] !== null || role === responsible);
  }

  exitRule(status: string): ExitRule | undefined {
    return this.definition.exit[status];
  }

  createHooks(status: string): readonly string[] | undefined {
    return this.definition.create[status]?.hooks;
  }

  /** Every action name the workflow uses (transitions and create rules). */
  get actions(): ReadonlySet<string> {
    return collectActions(this.definition);
  }

  /** Picks the template for a prompt reference given the task's fields. */
  resolvePrompt(ref: PromptRef | undefined, fields: Readonly<Record<string, unknown>>): string | undefined {
    if (ref === undefined) return undefined;
    if (typeof ref === 'string') return this.definition.prompts[ref];
    for (const option of ref) {
      if (option.guard === undefined) return this.definition.prompts[option.prompt];
      const parsed = parseGuard(option.guard);
      if (parsed.ok && evaluateGuard(parsed.guard, fields)) return this.definition.prompts[option.prompt];
    }
    return undefined;
  }
}

function pairKey(from: string, to: string): string {
  return `${from}\u0000${to}`;
}

function collectActions(definition: WorkflowDefinition): Set<string> {
  const names = new Set<string>();
  for (const t of definition.transitions) for (const h of t.hooks) names.add(h);
  for (const rule of Object.values(definition.create)) for (const h of rule.hooks) names.add(h);
  return names;
}

function promptNames(ref: PromptRef | undefined): { names: string[]; guards: string[] } {
  if (ref === undefined) return { names: [], guards: [] };
  if (typeof ref === 'string') return { names: [ref], guards: [] };
  return {
    names: ref.map((o) => o.prompt),
    guards: ref.flatMap((o) => (o.guard === undefined ? [] : [o.guard])),
  };
}

/** Every defect of a parsed definition, as sentences; empty when valid. Pure. */
export function validateWorkflow(w: WorkflowDefinition, vocabulary: WorkflowVocabulary = {}): string[] {
  const problems: string[] = [];
  const states = new Set(Object.keys(w.states));
  const known = (s: string) => states.has(s);
  const terminal = (s: string) => w.states[s]?.terminal === true;

  if (!known(w.initial)) problems.push(`initial state "${w.initial}" is not a state`);
  if (!known(w.start)) problems.push(`start state "${w.start}" is not a state`);
  else if (terminal(w.start)) problems.push(`start state "${w.start}" is terminal`);
  if (![...states].some(terminal)) problems.push('no terminal state: tasks could never finish');

  for (const [name, state] of Object.entries(w.states)) {
    for (const ref of [state.prompt, state.respawnPrompt]) {
      const { names, guards } = promptNames(ref);
      for (const p of names) if (!(p in w.prompts)) problems.push(`state "${name}" names unknown prompt "${p}"`);
      for (const g of guards) {
        const parsed = parseGuard(g);
        if (!parsed.ok) problems.push(`state "${name}": ${parsed.error}`);
      }
    }
  }

  const normalByPair = new Map<string, TransitionDefinition[]>();
  w.transitions.forEach((t, i) => {
    const label = `transition #${i + 1} ${t.from} → ${t.to}`;
    if (!known(t.from)) problems.push(`${label}: unknown state "${t.from}"`);
    if (!known(t.to)) problems.push(`${label}: unknown state "${t.to}"`);
    if (known(t.from) && terminal(t.from)) problems.push(`${label}: leaves terminal state "${t.from}"`);
    if (t.gate !== undefined && vocabulary.gates && !vocabulary.gates.has(t.gate)) {
      problems.push(`${label}: unknown gate "${t.gate}"`);
    }
    for (const hook of t.hooks) {
      if (vocabulary.actions && !vocabulary.actions.has(hook)) {
        problems.push(`${label}: no plugin provides hook "${hook}"`);
      }
    }
    if (t.guard !== undefined) {
      const parsed = parseGuard(t.guard);
      if (!parsed.ok) problems.push(`${label}: ${parsed.error}`);
    }
    if (t.crash && t.force) problems.push(`${label}: a transition is either crash or force, not both`);
    if (!t.crash && !t.force && t.by === undefined) problems.push(`${label}: says nobody may take it (add by: ['agent'], ['person'], ['orange'] or several)`);
    if (t.crash && t.by !== undefined && t.by.some((a) => a !== 'orange')) problems.push(`${label}: a crash transition is Orange's alone (by: ['orange'])`);
    if (t.force && t.by !== undefined && t.by.some((a) => a !== 'person')) problems.push(`${label}: a force transition is a person's alone (by: ['person'])`);
    const key = `${t.crash ? 'crash' : t.force ? 'force' : 'normal'}:${pairKey(t.from, t.to)}`;
    normalByPair.set(key, [...(normalByPair.get(key) ?? []), t]);
  });

  for (const group of normalByPair.values()) {
    for (let i = 0; i < group.length; i++) {
      for (let j = i + 1; j < group.length; j++) {
        const a = group[i] as TransitionDefinition;
        const b = group[j] as TransitionDefinition;
        const ga = a.guard === undefined ? null : parseGuard(a.guard);
        const gb = b.guard === undefined ? null : parseGuard(b.guard);
        if (ga && !ga.ok) continue;
        if (gb && !gb.ok) continue;
        const overlap = ga === null || gb === null || guardsOverlap(ga.guard, gb.guard);
        if (overlap) {
          problems.push(
            `transitions ${a.from} → ${a.to} have overlapping guards (${a.guard ?? 'none'} / ${b.guard ?? 'none'}): the machine would not be deterministic`,
          );
        }
      }
    }
  }

  const hasTransition = (from: string, to: string, crash?: boolean) =>
    w.transitions.some((t) => t.from === from && t.to === to && !t.force && (crash === undefined || t.crash === crash));

  for (const name of states) {
    if (terminal(name)) {
      if (name in w.exit) problems.push(`exit rule for terminal state "${name}" can never apply`);
      continue;
    }
    if (!(name in w.exit)) problems.push(`state "${name}" has no exit rule (what happens when its agent exits?)`);
  }
  for (const [name, rule] of Object.entries(w.exit)) {
    if (!known(name)) {
      problems.push(`exit rule for unknown state "${name}"`);
      continue;
    }
    for (const target of rule.advance) {
      if (!hasTransition(name, target, false)) {
        problems.push(`exit rule for "${name}" advances to "${target}" but there is no transition ${name} → ${target}`);
      } else if (!w.transitions.some((t) => t.from === name && t.to === target && !t.force && !t.crash && (t.by === undefined || t.by.includes('orange')))) {
        problems.push(`exit rule for "${name}" advances to "${target}" but transition ${name} → ${target} is not Orange's to take (add 'orange' to its by)`);
      }
    }
    if (rule.otherwise === 'crash') {
      if (rule.crashTo === undefined) {
        problems.push(`exit rule for "${name}" counts crashes but names no crashTo state for the crash limit`);
      } else if (!hasTransition(name, rule.crashTo)) {
        problems.push(`exit rule for "${name}" moves to "${rule.crashTo}" at the crash limit but there is no transition ${name} → ${rule.crashTo}`);
      } else if (!w.transitions.some((t) => t.from === name && t.to === rule.crashTo && !t.force && (t.crash || t.by === undefined || t.by.includes('orange')))) {
        problems.push(`exit rule for "${name}" moves to "${rule.crashTo}" at the crash limit but transition ${name} → ${rule.crashTo} is not Orange's to take (add 'orange' to its by)`);
      }
    } else if (rule.respawn) {
      problems.push(`exit rule for "${name}" respawns but only counts crashes with otherwise: crash`);
    }
  }

  for (const [status, rule] of Object.entries(w.create)) {
    if (!known(status)) problems.push(`create rule for unknown state "${status}"`);
    else if (terminal(status)) problems.push(`create rule for terminal state "${status}"`);
    for (const hook of rule.hooks) {
      if (vocabulary.actions && !vocabulary.actions.has(hook)) {
        problems.push(`create rule for "${status}": no plugin provides hook "${hook}"`);
      }
    }
  }
  if (!(w.initial in w.create)) problems.push(`create rules must allow the initial state "${w.initial}"`);
  if (known(w.initial) && known(w.start) && !hasTransition(w.initial, w.start, false)) {
    problems.push(`no transition ${w.initial} → ${w.start} (initial → start)`);
  }
  return problems;
}
