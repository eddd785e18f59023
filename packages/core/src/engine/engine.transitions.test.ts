/**
 * The transition matrix of each built-in workflow, generated from the workflow data itself:
 * every transition is taken when its guard and gate hold and refused when they do not, and
 * every pair the map does not have is refused without touching TASK.md or the ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editSection, filesOf, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { classicWorkflow } from '../workflow/classic.js';
import { defaultWorkflow } from '../workflow/default.js';
import type { WorkflowInput } from '../workflow/definition.js';
import { Workflow, type Transition } from '../workflow/workflow.js';
import type { Guard } from '../workflow/guard.js';
import type { TaskMeta } from '../task/task.js';

/** A body section that satisfies each built-in gate, and one that has the section but fails it. */
const GATE_ARTIFACTS: Record<string, { section: string; passing: string; failing: string }> = {
  plan: { section: 'Plan', passing: 'APPROACH: split the parser\nTOUCHING: parser.ts', failing: 'APPROACH:\nTOUCHING:' },
  handoff: { section: 'Handoff', passing: 'DONE: parser split', failing: 'DONE:\nREMAINING:' },
  'review-pass': { section: 'Review', passing: 'Verdict: PASS\nclean', failing: 'Verdict: FAIL\nbroken' },
  'review-fail': { section: 'Review', passing: 'Verdict: FAIL\nbroken', failing: 'Verdict: PASS\nclean' },
};

/** A value of the guard's field that makes it hold (or not); review_round-style counts stay ≥ 0. */
function guardValue(guard: Guard, holds: boolean): number {
  const v = guard.value;
  if (typeof v !== 'number') throw new Error(`the matrix only knows numeric guards, not ${guard.source}`);
  const [yes, no]: [number, number] = (
    {
    '<': [v - 1, v],
    '<=': [v, v + 1],
    '>': [v + 1, v],
    '>=': [v, v - 1],
    '==': [v, v + 1],
    '!=': [v + 1, v],
    } as Record<string, [number, number]>
  )[guard.op] ?? [v, v];
  const value = holds ? yes : no;
  if (value < 0) throw new Error(`no non-negative value makes ${guard.source} ${holds ? 'hold' : 'fail'}`);
  return value;
}

function label(t: Transition): string {
  const extras = [t.gate && `gate ${t.gate}`, t.guard && `guard ${t.guard}`].filter(Boolean).join(', ');
  return `${t.from} → ${t.to}${extras ? ` [${extras}]` : ''}`;
}

function bodyFor(t: Transition, artifact: 'passing' | 'failing' | 'missing'): string {
  if (t.gate === undefined || artifact === 'missing') return '';
  const a = GATE_ARTIFACTS[t.gate];
  if (!a) throw new Error(`no artifact known for gate ${t.gate}`);
  return `## ${a.section}\n\n${a[artifact]}\n`;
}

function metaFor(t: Transition, guardHolds: boolean): Partial<TaskMeta> {
  return t.parsedGuard ? { [t.parsedGuard.field]: guardValue(t.parsedGuard, guardHolds) } : {};
}

const WORKFLOWS: [string, WorkflowInput][] = [
  ['default', defaultWorkflow],
  ['classic', classicWorkflow],
];

describe.each(WORKFLOWS)('the %s workflow, transition by transition', (name, input) => {
  const workflow = Workflow.load(input);
  const normal = workflow.transitions.filter((t) => !t.crash && !t.force);
  const crash = workflow.transitions.filter((t) => t.crash);
  const forced = workflow.transitions.filter((t) => t.force);
  let box: Sandbox;

  beforeAll(async () => {
    box = await sandbox({ workflow: name }, [], { recordCore: true });
  });
  afterAll(async () => box?.cleanup());

  async function expectUnchangedRefusal(ref: { project: string; id: string }, to: string, code: string, options = {}) {
    const before = await filesOf(box, ref);
    box.calls.length = 0;
    await expect(box.orange.engine.transition(ref, to, options)).rejects.toMatchObject({ code });
    expect(await filesOf(box, ref)).toEqual(before);
    expect(box.calls).toEqual([]);
  }

  it('covers every state in the data', () => {
    expect(normal.length).toBeGreaterThan(10);
    expect(new Set(workflow.transitions.map((t) => t.from))).toEqual(
      new Set(workflow.states.filter((s) => !workflow.isTerminal(s))),
    );
  });

  describe.each(normal.map((t) => [label(t), t] as const))('%s', (_, t) => {
    it(`moves ${t.from} → ${t.to} when its guard and gate hold, running its hooks in the listed order`, async () => {
      const ref = await taskIn(box, t.from, { body: bodyFor(t, 'passing'), meta: { ...metaFor(t, true), crash_count: 1 } });
      const round = (await box.orange.store.read(ref.project, ref.id)).meta.review_round;
      box.calls.length = 0;
      const result = await box.orange.engine.transition(ref, t.to, { actor: t.by[0] });
      expect(result).toMatchObject({ from: t.from, to: t.to, changed: true, failedHooks: [] });
      expect(box.calls).toEqual(t.hooks);

      const task = await box.orange.store.read(ref.project, ref.id);
      expect(task.meta.status).toBe(t.to);
      expect(task.meta.crash_count).toBe(0);
      expect(task.meta.attention).toBeNull();
      expect(task.meta.review_round).toBe(round + t.hooks.filter((h) => h === 'increment_review_round').length);
      const changes = (await box.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'status.changed');
      expect(changes).toEqual([expect.objectContaining({ from: t.from, to: t.to, cause: 'request' })]);
      expect(await box.orange.store.ledgerStatus(ref.project, ref.id)).toBe(t.to);
    });

    // Who may not take it is refused before its guard and gate are looked at, with everything in place.
    const others = (['agent', 'person', 'orange'] as const).filter((actor) => workflow.between(t.from, t.to).every((x) => !x.by.includes(actor)));
    for (const actor of others) {
      it(`refuses ${t.from} → ${t.to} to ${actor === 'orange' ? 'Orange' : `a${actor === 'agent' ? 'n' : ''} ${actor}`} with E_FORBIDDEN, changing nothing`, async () => {
        const ref = await taskIn(box, t.from, { body: bodyFor(t, 'passing'), meta: metaFor(t, true) });
        await expectUnchangedRefusal(ref, t.to, 'E_FORBIDDEN', { actor });
      });
    }

    if (t.parsedGuard && workflow.between(t.from, t.to).length === 1) {
      it(`refuses ${t.from} → ${t.to} with E_GUARD_FAILED when ${t.guard} does not hold, changing nothing`, async () => {
        const ref = await taskIn(box, t.from, { body: bodyFor(t, 'passing'), meta: metaFor(t, false) });
        await expectUnchangedRefusal(ref, t.to, 'E_GUARD_FAILED', { actor: t.by[0] });
      });
    }

    if (t.gate !== undefined) {
      it(`refuses ${t.from} → ${t.to} with E_GATE_FAILED when the ${t.gate} section is missing, changing nothing`, async () => {
        const ref = await taskIn(box, t.from, { body: bodyFor(t, 'missing'), meta: metaFor(t, true) });
        await expectUnchangedRefusal(ref, t.to, 'E_GATE_FAILED', { actor: t.by[0] });
      });

      it(`refuses ${t.from} → ${t.to} with E_GATE_FAILED when the ${t.gate} artifact is there but does not pass, changing nothing`, async () => {
        const ref = await taskIn(box, t.from, { body: bodyFor(t, 'failing'), meta: metaFor(t, true) });
        await expectUnchangedRefusal(ref, t.to, 'E_GATE_FAILED', { actor: t.by[0] });
      });
    }
  });

  describe.each(crash.map((t) => [label(t), t] as const))('crash transition %s', (_, t) => {
    it(`is taken only with crash: true, with no artifact, running its hooks in order`, async () => {
      // Without crash: true the pair is refused: by the map, or as the requested transition it
      // also is, whose gate finds no artifact (its guard made to hold, so only the artifact lacks).
      const [requested, ...more] = workflow.between(t.from, t.to);
      expect(more, 'one requested transition per pair at most').toEqual([]);
      expect(requested === undefined || requested.gate !== undefined, `${t.from} → ${t.to} is also requested without an artifact`).toBe(true);
      const ref = await taskIn(box, t.from, { meta: requested ? metaFor(requested, true) : {} });
      if (requested) await expectUnchangedRefusal(ref, t.to, 'E_GATE_FAILED', { actor: requested.by[0] });
      else await expectUnchangedRefusal(ref, t.to, 'E_ILLEGAL_TRANSITION');
      box.calls.length = 0;
      const result = await box.orange.engine.transition(ref, t.to, { crash: true, cause: 'crash' });
      expect(result.changed).toBe(true);
      expect(box.calls).toEqual(t.hooks);
      expect((await box.orange.store.read(ref.project, ref.id)).meta.status).toBe(t.to);
    });
  });

  describe.each(forced.map((t) => [label(t), t] as const))('forced transition %s', (_, t) => {
    it(`is refused without force, then taken with force: true, with no artifact, running its hooks in order, recorded as forced`, async () => {
      const ref = await taskIn(box, t.from);
      await expectUnchangedRefusal(ref, t.to, 'E_ILLEGAL_TRANSITION', { actor: 'person' });
      await expectUnchangedRefusal(ref, t.to, 'E_ILLEGAL_TRANSITION', { crash: true, cause: 'crash' });
      // A forced merge is a person's, never an agent's or Orange's own.
      await expectUnchangedRefusal(ref, t.to, 'E_FORBIDDEN', { force: true, actor: 'agent' });
      box.calls.length = 0;
      const result = await box.orange.engine.transition(ref, t.to, { force: true, reason: 'forced merge', actor: 'person' });
      expect(result.changed).toBe(true);
      expect(box.calls).toEqual(t.hooks);
      expect((await box.orange.store.read(ref.project, ref.id)).meta.status).toBe(t.to);
      const changes = (await box.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'status.changed');
      expect(changes).toEqual([expect.objectContaining({ from: t.from, to: t.to, cause: 'request', forced: true, reason: 'forced merge' })]);
    });
  });

  it('never offers a forced transition as a target', () => {
    for (const t of forced) expect(workflow.from(t.from).some((x) => x.to === t.to && x.force)).toBe(false);
  });

  const statuses = [...workflow.states, 'no-such-status'];
  const illegal = workflow.states.flatMap((from) =>
    statuses.filter((to) => workflow.between(from, to).length === 0).map((to) => [`${from} → ${to}`, from, to] as const),
  );

  it('has pairs outside the map to refuse', () => {
    expect(illegal.length).toBeGreaterThan(workflow.states.length * 4);
  });

  describe.each(illegal)('%s, not in the map', (_, from, to) => {
    it(`is refused with E_ILLEGAL_TRANSITION and changes nothing`, async () => {
      // Every artifact present and a guard-friendly round: only the map can be the reason.
      const body = ['## Plan', 'APPROACH: a', '## Handoff', 'DONE: b', '## Review', 'Verdict: PASS', ''].join('\n\n');
      const ref = await taskIn(box, from, { body, meta: { review_round: 1 } });
      await expectUnchangedRefusal(ref, to, 'E_ILLEGAL_TRANSITION');
    });
  });

  it('names both statuses and the legal targets in an illegal-transition refusal', async () => {
    const ref = await taskIn(box, 'pending');
    await expect(box.orange.engine.transition(ref, 'done')).rejects.toThrow(
      new RegExp(`^pending → done refused: not a transition of workflow ${name} \\(from pending: .+\\)$`),
    );
  });

  it('edits by an agent between steps are kept when the engine writes the status', async () => {
    const t = normal.find((x) => x.gate !== undefined) as Transition;
    const ref = await taskIn(box, t.from, { body: bodyFor(t, 'passing'), meta: metaFor(t, true) });
    await editSection(box, ref, 'Notes', 'the agent wrote this');
    await box.orange.engine.transition(ref, t.to, { actor: t.by[0] });
    expect((await box.orange.store.read(ref.project, ref.id)).body).toContain('the agent wrote this');
  });
});
