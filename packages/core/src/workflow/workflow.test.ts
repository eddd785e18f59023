import { describe, expect, it } from 'vitest';
import { NOOP_ACTIONS, recordingPlugin } from '../../test/fixtures.js';
import { OrangeError, WorkflowInvalid } from '../errors/errors.js';
import { builtinGates } from './gates.js';
import { Orange } from '../orange.js';
import { classicWorkflow } from './classic.js';
import { defaultWorkflow } from './default.js';
import { defineWorkflow, type WorkflowInput } from './definition.js';
import { renderPrompt } from './prompts.js';
import { Workflow, validateWorkflow, type WorkflowVocabulary } from './workflow.js';
import { OrangePaths } from '../store/paths.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const VOCABULARY: WorkflowVocabulary = {
  gates: new Set(Object.keys(builtinGates)),
  actions: new Set([...NOOP_ACTIONS, 'increment_review_round']),
};

/** A small valid workflow; each test breaks one thing. */
function mini(): WorkflowInput & Required<Pick<WorkflowInput, 'states' | 'transitions' | 'exit' | 'create' | 'prompts'>> {
  return {
    name: 'mini',
    initial: 'pending',
    start: 'working',
    states: {
      pending: {},
      working: { agent: 'worker', prompt: 'worker', respawnPrompt: 'worker' },
      reviewing: { agent: 'worker' },
      done: { terminal: true },
      cancelled: { terminal: true },
    },
    transitions: [
      { from: 'pending', to: 'working', by: ['agent', 'person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },
      { from: 'pending', to: 'cancelled', by: ['agent', 'person', 'orange'] },
      { from: 'working', to: 'reviewing', by: ['agent', 'person', 'orange'], gate: 'handoff' },
      { from: 'working', to: 'cancelled', by: ['agent', 'person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
      { from: 'reviewing', to: 'done', by: ['agent', 'person', 'orange'] },
    ],
    exit: {
      pending: { otherwise: 'mark' },
      working: { advance: ['reviewing'], otherwise: 'mark' },
      reviewing: { otherwise: 'mark' },
    },
    create: { pending: { hooks: [] } },
    prompts: { worker: '# {summary}' },
  };
}

function problems(input: WorkflowInput, vocabulary: WorkflowVocabulary = VOCABULARY): string[] {
  try {
    Workflow.load(input, vocabulary);
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowInvalid);
    expect((error as OrangeError).code).toBe('E_WORKFLOW_INVALID');
    return (error as WorkflowInvalid).problems;
  }
  return [];
}

describe('Workflow.load', () => {
  it('loads a workflow written with defineWorkflow, as a config does', () => {
    expect(Workflow.load(defineWorkflow(mini()), VOCABULARY).states).toContain('working');
  });

  it('accepts the small workflow the other cases break', () => {
    expect(problems(mini())).toEqual([]);
  });

  it.each([
    ['default', defaultWorkflow],
    ['classic', classicWorkflow],
  ])('accepts the built-in %s workflow against the built-in gates and actions', (_, workflow) => {
    expect(problems(workflow)).toEqual([]);
  });

  it('refuses a transition to an unknown state', () => {
    const w = mini();
    w.transitions.push({ from: 'working', to: 'review', by: ['agent', 'person', 'orange'] });
    expect(problems(w)).toEqual(['transition #6 working → review: unknown state "review"']);
  });

  it('refuses a transition from an unknown state', () => {
    const w = mini();
    w.transitions.push({ from: 'triage', to: 'working', by: ['agent', 'person', 'orange'] });
    expect(problems(w)).toEqual(['transition #6 triage → working: unknown state "triage"']);
  });

  it('refuses a transition out of a terminal state', () => {
    const w = mini();
    w.transitions.push({ from: 'done', to: 'working', by: ['agent', 'person', 'orange'] });
    expect(problems(w)).toEqual(['transition #6 done → working: leaves terminal state "done"']);
  });

  it('refuses a gate nobody registered', () => {
    const w = mini();
    w.transitions[2] = { from: 'working', to: 'reviewing', by: ['agent', 'person', 'orange'], gate: 'tests-pass' };
    expect(problems(w)).toEqual(['transition #3 working → reviewing: unknown gate "tests-pass"']);
  });

  it('refuses an action no plugin provides, naming the action', () => {
    const w = mini();
    w.transitions[4] = { from: 'reviewing', to: 'done', by: ['agent', 'person', 'orange'], hooks: ['format', 'kill_session'] };
    expect(problems(w)).toEqual(['transition #5 reviewing → done: no plugin provides hook "format"']);
  });

  it('refuses an unknown action in a create rule', () => {
    const w = mini();
    w.create.pending = { hooks: ['warm_cache'] };
    expect(problems(w)).toEqual(['create rule for "pending": no plugin provides hook "warm_cache"']);
  });

  it('skips the gate and action checks when the vocabulary does not say', () => {
    const w = mini();
    w.transitions[2] = { from: 'working', to: 'reviewing', by: ['agent', 'person', 'orange'], gate: 'tests-pass', hooks: ['format'] };
    expect(problems(w, {})).toEqual([]);
  });

  it('refuses an unknown prompt, in a plain or a guarded prompt reference', () => {
    const w = mini();
    w.states.working = { agent: 'worker', prompt: 'nope', respawnPrompt: [{ guard: 'review_round > 0', prompt: 'fix' }, { prompt: 'worker' }] };
    expect(problems(w)).toEqual(['state "working" names unknown prompt "nope"', 'state "working" names unknown prompt "fix"']);
  });

  it('refuses a transition guard that does not parse, quoting it', () => {
    const w = mini();
    w.transitions[2] = { from: 'working', to: 'reviewing', by: ['agent', 'person', 'orange'], guard: 'review_round = 2' };
    expect(problems(w)).toEqual([
      'transition #3 working → reviewing: guard "review_round = 2" is not of the form "field op literal" (op is one of < <= > >= == !=)',
    ]);
  });

  it('refuses a prompt guard that does not parse', () => {
    const w = mini();
    w.states.working = { agent: 'worker', prompt: [{ guard: 'round < two', prompt: 'worker' }] };
    expect(problems(w)).toEqual(['state "working": guard "round < two" compares with < but "two" is not a number']);
  });

  it('refuses two transitions on one pair whose guards could both hold', () => {
    const w = mini();
    w.transitions.push({ from: 'working', to: 'cancelled', by: ['agent', 'person', 'orange'], guard: 'a < 2' }, { from: 'working', to: 'cancelled', by: ['agent', 'person', 'orange'], guard: 'a <= 3' });
    w.transitions.splice(3, 1);
    expect(problems(w)).toEqual([
      'transitions working → cancelled have overlapping guards (a < 2 / a <= 3): the machine would not be deterministic',
    ]);
  });

  it('refuses a guarded and an unguarded transition on one pair', () => {
    const w = mini();
    w.transitions.push({ from: 'working', to: 'cancelled', by: ['agent', 'person', 'orange'], guard: 'a < 2' });
    expect(problems(w)).toEqual([
      'transitions working → cancelled have overlapping guards (none / a < 2): the machine would not be deterministic',
    ]);
  });

  it('accepts two transitions on one pair whose guards exclude each other, and a crash twin', () => {
    const w = mini();
    w.transitions.splice(2, 1, { from: 'working', to: 'reviewing', by: ['agent', 'person', 'orange'], guard: 'a < 2' }, { from: 'working', to: 'reviewing', by: ['agent', 'person', 'orange'], guard: 'a >= 2' });
    w.transitions.push({ from: 'working', to: 'cancelled', crash: true });
    expect(problems(w)).toEqual([]);
  });

  it('refuses a transition that is both crash and force', () => {
    const w = mini();
    w.transitions.push({ from: 'working', to: 'cancelled', crash: true, force: true });
    expect(problems(w)).toEqual(['transition #6 working → cancelled: a transition is either crash or force, not both']);
  });

  it('does not count a forced transition as the one an exit rule advances by', () => {
    const w = mini();
    w.transitions.splice(2, 1, { from: 'working', to: 'reviewing', force: true });
    expect(problems(w)).toContain('exit rule for "working" advances to "reviewing" but there is no transition working → reviewing');
  });

  it('refuses a non-terminal state with no exit rule', () => {
    const w = mini();
    delete w.exit.reviewing;
    expect(problems(w)).toEqual(['state "reviewing" has no exit rule (what happens when its agent exits?)']);
  });

  it('refuses an exit rule that counts crashes but has nowhere to go at the limit', () => {
    const w = mini();
    w.exit.working = { advance: ['reviewing'], otherwise: 'crash' };
    expect(problems(w)).toEqual(['exit rule for "working" counts crashes but names no crashTo state for the crash limit']);
  });

  it('refuses a crashTo with no transition to it', () => {
    const w = mini();
    w.exit.reviewing = { otherwise: 'crash', crashTo: 'cancelled' };
    expect(problems(w)).toEqual(['exit rule for "reviewing" moves to "cancelled" at the crash limit but there is no transition reviewing → cancelled']);
  });

  it('refuses an advance target with no transition', () => {
    const w = mini();
    w.exit.pending = { advance: ['done'], otherwise: 'mark' };
    expect(problems(w)).toEqual(['exit rule for "pending" advances to "done" but there is no transition pending → done']);
  });

  it('refuses respawn on an exit rule that never counts a crash', () => {
    const w = mini();
    w.exit.reviewing = { otherwise: 'mark', respawn: true };
    expect(problems(w)).toEqual(['exit rule for "reviewing" respawns but only counts crashes with otherwise: crash']);
  });

  it('refuses exit rules for terminal or unknown states', () => {
    const w = mini();
    w.exit.done = { otherwise: 'mark' };
    w.exit.ghost = { otherwise: 'mark' };
    expect(problems(w)).toEqual(['exit rule for terminal state "done" can never apply', 'exit rule for unknown state "ghost"']);
  });

  it('refuses bad initial, start and create rules', () => {
    expect(problems({ ...mini(), start: 'done' })).toEqual(['start state "done" is terminal', 'no transition pending → done (initial → start)']);
    expect(problems({ ...mini(), initial: 'queued' })).toEqual([
      'initial state "queued" is not a state',
      'create rules must allow the initial state "queued"',
    ]);
    const w = mini();
    w.create = { working: { hooks: [] }, done: { hooks: [] }, ghost: { hooks: [] } };
    expect(problems(w)).toEqual([
      'create rule for terminal state "done"',
      'create rule for unknown state "ghost"',
      'create rules must allow the initial state "pending"',
    ]);
  });

  it('refuses a workflow with no terminal state', () => {
    const w = mini();
    w.states.done = {};
    w.states.cancelled = {};
    w.exit.done = { otherwise: 'mark' };
    w.exit.cancelled = { otherwise: 'mark' };
    expect(problems(w)).toEqual(['no terminal state: tasks could never finish']);
  });

  it('reports schema errors with their paths', () => {
    const w = { ...mini(), start: undefined, transitions: [{ from: 'pending', to: 'working', by: ['agent', 'person', 'orange'], hooks: 'spawn_agent' }] };
    expect(problems(w as unknown as WorkflowInput)).toEqual([
      expect.stringMatching(/^start: /),
      expect.stringMatching(/^transitions\.0\.hooks: /),
    ]);
  });

  it('refuses a transition that says nobody may take it, naming each such transition', () => {
    const w = mini();
    w.transitions[2] = { from: 'working', to: 'reviewing', gate: 'handoff' };
    w.transitions[4] = { from: 'reviewing', to: 'done' };
    expect(validateWorkflow(Workflow.load(mini()).definition, VOCABULARY)).toEqual([]);
    expect(() => Workflow.load(w, VOCABULARY)).toThrow(WorkflowInvalid);
    expect(problemsOf(w)).toEqual([
      "transition #3 working → reviewing: says nobody may take it (add by: ['agent'], ['person'], ['orange'] or several)",
      "transition #5 reviewing → done: says nobody may take it (add by: ['agent'], ['person'], ['orange'] or several)",
    ]);
  });

  it("refuses a crash transition given to anyone but Orange, a forced one to anyone but a person, and an exit rule's target Orange may not take", () => {
    const w = mini();
    w.transitions.push({ from: 'working', to: 'cancelled', crash: true, by: ['agent'] }, { from: 'working', to: 'done', force: true, by: ['orange'] });
    w.transitions[2] = { from: 'working', to: 'reviewing', by: ['agent'], gate: 'handoff' };
    expect(problemsOf(w)).toEqual([
      'exit rule for "working" advances to "reviewing" but transition working → reviewing is not Orange\'s to take (add \'orange\' to its by)',
      "transition #6 working → cancelled: a crash transition is Orange's alone (by: ['orange'])",
      "transition #7 working → done: a force transition is a person's alone (by: ['person'])",
    ].sort());
  });

  it('gives a crash transition to Orange and a forced one to a person when they say nothing', () => {
    const w = mini();
    w.transitions.push({ from: 'working', to: 'cancelled', crash: true }, { from: 'working', to: 'done', force: true });
    const loaded = Workflow.load(w, VOCABULARY);
    expect(loaded.transitions.filter((t) => t.crash || t.force).map((t) => t.by)).toEqual([['orange'], ['person']]);
  });

  it('lists every problem at once: three defects, three problems', () => {
    const w = mini();
    w.transitions.push({ from: 'working', to: 'review', by: ['agent', 'person', 'orange'] });
    w.transitions[4] = { from: 'reviewing', to: 'done', by: ['agent', 'person', 'orange'], hooks: ['format'] };
    delete w.exit.reviewing;
    let error: unknown;
    try {
      Workflow.load(w, VOCABULARY);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WorkflowInvalid);
    const invalid = error as WorkflowInvalid;
    expect(invalid.problems).toHaveLength(3);
    expect(invalid.message).toBe(
      'workflow "mini" is invalid: transition #5 reviewing → done: no plugin provides hook "format"; ' +
        'transition #6 working → review: unknown state "review"; ' +
        'state "reviewing" has no exit rule (what happens when its agent exits?)',
    );
    expect(invalid.details).toEqual({ workflow: 'mini', problems: invalid.problems });
  });

  it('validateWorkflow is pure and returns an empty list for a valid definition', () => {
    const parsed = Workflow.load(mini()).definition;
    expect(validateWorkflow(parsed, VOCABULARY)).toEqual([]);
  });
});

describe('a configured workflow at start-up', () => {
  const paths = () => new OrangePaths(join(tmpdir(), 'orange-core-never-written'));

  it('refuses to start when the workflow names an action no loaded plugin provides', async () => {
    const w = mini();
    w.transitions[4] = { from: 'reviewing', to: 'done', by: ['agent', 'person', 'orange'], hooks: ['format'] };
    await expect(Orange.create({ workflow: w, plugins: [recordingPlugin([])] }, { paths: paths() })).rejects.toMatchObject({
      code: 'E_WORKFLOW_INVALID',
      message: expect.stringContaining('no plugin provides hook "format"'),
    });
  });

  it('starts once a plugin provides the action and registers the gate', async () => {
    const w = mini();
    w.transitions[2] = { from: 'working', to: 'reviewing', by: ['agent', 'person', 'orange'], gate: 'tests-pass', hooks: ['format'] };
    const formatter = {
      name: 'formatter',
      apply(orange: Orange) {
        orange.registerGate('tests-pass', () => ({ ok: true }));
        orange.hooks.actions.for('format').tapPromise('formatter', async () => undefined);
      },
    };
    const orange = await Orange.create({ workflow: w, plugins: [recordingPlugin([]), formatter] }, { paths: paths() });
    expect(orange.workflow().name).toBe('mini');
  });

  it('refuses the built-in default workflow when the plugins that provide its actions are missing', async () => {
    await expect(Orange.create({}, { paths: paths() })).rejects.toMatchObject({
      code: 'E_WORKFLOW_INVALID',
      message: expect.stringContaining('no plugin provides hook "acquire_workspace"'),
    });
  });
});

describe('prompts', () => {
  it('replaces {field} with the task field and leaves unknown or null names as written', () => {
    expect(renderPrompt('{summary} on {branch}: {nope} {pr_url} {working|stuck}', { summary: 'Fix', branch: 'b', pr_url: null })).toBe(
      'Fix on b: {nope} {pr_url} {working|stuck}',
    );
  });

  it.each([
    ['default', defaultWorkflow],
    ['classic', classicWorkflow],
  ])('the %s workflow tells agents to write each section with orange task section set, not by editing TASK.md', (_name, workflow) => {
    for (const [prompt, text] of Object.entries(workflow.prompts)) {
      const written = [...text.matchAll(/\b(?:write|update|add|document[^#\n]*in)\s+## (\w+)/gi)].map((m) => m[1]);
      for (const section of written) expect(text, `prompt ${prompt} asks for ## ${section}`).toContain(`orange task section set ${section}`);
      expect(text, `prompt ${prompt}`).not.toMatch(/(?:write|update)[^\n]*to TASK\.md/i);
    }
  });

  it('picks the first prompt whose guard holds (classic: worker_fix after a review)', () => {
    const classic = Workflow.load(classicWorkflow);
    const ref = classic.state('working')?.prompt;
    expect(classic.resolvePrompt(ref, { review_round: 0 })).toBe(classicWorkflow.prompts.worker);
    expect(classic.resolvePrompt(ref, { review_round: 1 })).toBe(classicWorkflow.prompts.worker_fix);
  });
});

/** The problems `Workflow.load` finds in `w`, sorted. */
function problemsOf(w: WorkflowInput): string[] {
  try {
    Workflow.load(w, VOCABULARY);
    return [];
  } catch (error) {
    return [...(error as WorkflowInvalid).problems].sort();
  }
}

describe('expectedAgents', () => {
  const workflow = Workflow.load(defaultWorkflow, VOCABULARY);
  const meta = (status: string, worker: string | null = null, reviewer: string | null = null) => ({ status, worker_spawn: worker, reviewer_spawn: reviewer });

  it("expects the status's agent and any agent with a recorded spawn, and none for a task that is not active", () => {
    expect(workflow.expectedAgents(meta('planning'))).toEqual(['worker']);
    expect(workflow.expectedAgents(meta('agent-review'))).toEqual(['reviewer']);
    expect(workflow.expectedAgents(meta('agent-review', 'w1', 'r1'))).toEqual(['worker', 'reviewer']);
    expect(workflow.expectedAgents(meta('pending', 'w1'))).toEqual([]);
    expect(workflow.expectedAgents(meta('done', 'w1'))).toEqual([]);
  });

  it("does not expect the on-demand worker of reviewing (a person's move is due), unless one is recorded as running", () => {
    expect(workflow.expectedAgents(meta('reviewing'))).toEqual([]);
    expect(workflow.expectedAgents(meta('reviewing', 'w1'))).toEqual(['worker']);
  });
});
