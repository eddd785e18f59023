import { describe, expect, it } from 'vitest';
import type { TransitionDefinition } from './definition.js';
import { builtinGates } from './gates.js';
import { pipelineWorkflow } from './pipeline.js';
import { Workflow } from './workflow.js';

// Seed 002's transition list, verbatim (from → to, its condition, its action), each with how the
// built-in pipeline workflow states the condition (a gate or a guard) and the actions it runs for
// it. The seed's actions are prose; the hooks are Orange's means for them (the checkpoint itself
// is written after every transition by the pipeline plugin, so no row names it).
interface SeedRow {
  readonly from: string;
  readonly to: string;
  readonly condition: string;
  readonly action: string;
  readonly gate?: string;
  readonly guard?: string;
  readonly hooks: readonly string[];
}

const SEED: readonly SeedRow[] = [
  { from: 'created', to: 'classifying', condition: '—', action: 'Generate task ID, read configs, create checkpoint', hooks: ['acquire_workspace', 'start_pipeline'] },
  { from: 'classifying', to: 'routing', condition: 'confidence >= 0.6', action: 'Record intent in checkpoint', gate: 'pipeline-confident', hooks: [] },
  { from: 'classifying', to: 'awaiting_clarification', condition: 'confidence < 0.6', action: 'Present clarification questions to user', gate: 'pipeline-unsure', hooks: [] },
  { from: 'awaiting_clarification', to: 'classifying', condition: 'User provides more info', action: 'Re-classify with additional context', hooks: ['start_pipeline'] },
  { from: 'routing', to: 'executing', condition: '—', action: 'Select pipeline, assign agents, record in checkpoint', gate: 'pipeline-routed', hooks: [] },
  { from: 'executing', to: 'verifying', condition: 'Current phase completed successfully', action: 'Record phase output, advance to next phase or verify', gate: 'pipeline-phases-done', hooks: [] },
  { from: 'executing', to: 'retrying', condition: 'Phase failed, retries remaining, budget available', action: 'Log failure, determine retry strategy', guard: 'phase_result == "failed"', hooks: [] },
  { from: 'executing', to: 'stopped', condition: 'Budget exceeded or user cancelled', action: 'Save state for possible /resume', hooks: ['stop_pipeline'] },
  { from: 'retrying', to: 'executing', condition: 'Same model tier retry (attempts 1-2)', action: 'Adjust strategy, re-run phase', gate: 'pipeline-same-tier', hooks: ['next_attempt'] },
  { from: 'retrying', to: 'escalating', condition: 'Attempts >= escalation threshold', action: 'Select higher model tier', gate: 'pipeline-tier-used-up', hooks: [] },
  { from: 'retrying', to: 'stopped', condition: 'Circuit breaker tripped (3 consecutive failures)', action: 'Report full diagnostics, save checkpoint', hooks: [] },
  { from: 'escalating', to: 'executing', condition: '—', action: 'Re-run phase with upgraded model', gate: 'pipeline-higher-tier', hooks: ['escalate_tier'] },
  { from: 'escalating', to: 'stopped', condition: 'Already at highest tier (Opus) and max retries reached', action: 'Report failure, save checkpoint for manual intervention', hooks: [] },
  { from: 'verifying', to: 'completed', condition: 'All checks pass', action: 'Move checkpoint to completed, evaluate evolution, save memory', guard: 'verification == "passed"', hooks: ['save_memory', 'stop_pipeline', 'release_workspace'] },
  { from: 'verifying', to: 'retrying', condition: 'Verification failed', action: 'Feed verification results back into execution phase', guard: 'verification == "failed"', hooks: [] },
];

/**
 * Departure 1 (docs/workflows.md, "Departures from seed 002"): the seed's breaker and top-tier rows
 * end `failed` instead of `stopped`, which stays for cancel and budget. Both free the worktree, as
 * `completed` does: the commits stay on the branch.
 */
const REPLACED: ReadonlyArray<{ readonly seed: readonly [string, string]; readonly by: Omit<SeedRow, 'condition' | 'action'> }> = [
  { seed: ['retrying', 'stopped'], by: { from: 'retrying', to: 'failed', gate: 'pipeline-breaker-tripped', hooks: ['stop_pipeline', 'release_workspace'] } },
  { seed: ['escalating', 'stopped'], by: { from: 'escalating', to: 'failed', gate: 'pipeline-top-tier', hooks: ['stop_pipeline', 'release_workspace'] } },
];

const RUNNING = ['classifying', 'routing', 'executing', 'retrying', 'escalating', 'verifying'] as const;

/**
 * Departure 2: `stopped` is not terminal. Every running state (the seed: only `executing`) and the
 * two waiting ones can be cancelled into it; `orange task resume` leaves it where the checkpoint
 * says (acquiring a worktree first: a task cancelled in `created` has none). Departure 5: a stopped
 * task nobody will resume is abandoned into `failed` (`orange task cancel` again), freeing its worktree.
 */
const ADDED: ReadonlyArray<Omit<SeedRow, 'condition' | 'action'>> = [
  ...RUNNING.filter((from) => from !== 'executing').map((from) => ({ from, to: 'stopped', hooks: ['stop_pipeline'] })),
  { from: 'created', to: 'stopped', hooks: ['stop_pipeline'] },
  { from: 'awaiting_clarification', to: 'stopped', hooks: ['stop_pipeline'] },
  ...(['classifying', 'executing', 'verifying'] as const).map((to) => ({ from: 'stopped', to, gate: 'pipeline-resumable', hooks: ['acquire_workspace', 'start_pipeline'] })),
  { from: 'stopped', to: 'failed', hooks: ['stop_pipeline', 'release_workspace'] },
  // Departure 6: verified work reaches the default branch only through a person — `completed` waits
  // for `orange task merge` (or its pull request, merged) into the terminal `done`, or is abandoned.
  { from: 'completed', to: 'done', hooks: ['delete_remote_branch'] },
  { from: 'completed', to: 'failed', hooks: [] },
];

const transitions = pipelineWorkflow.transitions as readonly TransitionDefinition[];
const find = (from: string, to: string) => transitions.filter((t) => t.from === from && t.to === to);
const key = (t: { from: string; to: string }) => `${t.from} → ${t.to}`;
const replacedSeed = new Set(REPLACED.map((r) => key({ from: r.seed[0], to: r.seed[1] })));
/** Every pair the workflow may have: the seed's rows kept, the replacements, the additions. */
const EXPECTED: ReadonlyArray<Omit<SeedRow, 'condition' | 'action'>> = [...SEED.filter((row) => !replacedSeed.has(key(row))), ...REPLACED.map((r) => r.by), ...ADDED];

describe('the pipeline workflow is seed 002', () => {
  it('has every state of the seed, and done: failed and done terminal, completed waiting for a person', () => {
    const workflow = Workflow.load(pipelineWorkflow);
    expect(workflow.states).toEqual(['created', 'classifying', 'awaiting_clarification', 'routing', 'executing', 'retrying', 'escalating', 'verifying', 'completed', 'done', 'failed', 'stopped']);
    expect(workflow.states.filter((s) => workflow.isTerminal(s))).toEqual(['done', 'failed']);
  });

  it("gives the driver's moves to Orange alone, and clarify, resume, cancel and merge to a person", () => {
    const workflow = Workflow.load(pipelineWorkflow);
    const byOf = (from: string, to: string) => workflow.between(from, to)[0]?.by;
    for (const [from, to] of [['classifying', 'routing'], ['executing', 'verifying'], ['retrying', 'failed'], ['verifying', 'completed']] as const) expect(byOf(from, to)).toEqual(['orange']);
    expect(byOf('awaiting_clarification', 'classifying')).toEqual(['person']);
    expect(byOf('stopped', 'executing')).toEqual(['person']);
    expect(byOf('completed', 'done')).toEqual(['person', 'orange']);
    expect(workflow.transitions.some((t) => t.by.includes('agent'))).toBe(false);
  });

  it.each(SEED.filter((row) => !replacedSeed.has(key(row))).map((row) => [`${key(row)} (${row.condition})`, row] as const))(
    'has the seed row %s with its gate, guard and hooks',
    (_name, row) => {
      const [match, ...more] = find(row.from, row.to);
      expect(match, `missing ${key(row)}`).toBeDefined();
      expect(more, `${key(row)} is listed twice`).toEqual([]);
      expect(match?.gate).toBe(row.gate);
      expect(match?.guard).toBe(row.guard);
      expect(match?.hooks ?? []).toEqual(row.hooks);
    },
  );

  it.each(REPLACED.map((r) => [`${r.seed[0]} → ${r.seed[1]}`, r] as const))('replaces the seed row %s by the documented transition into failed', (_name, { seed, by }) => {
    expect(find(seed[0], seed[1]).filter((t) => t.gate === by.gate)).toEqual([]);
    const [match, ...more] = find(by.from, by.to);
    expect(more).toEqual([]);
    expect(match).toMatchObject({ gate: by.gate, hooks: by.hooks });
    expect(match?.guard).toBeUndefined();
  });

  it.each(ADDED.map((row) => [key(row), row] as const))('adds the documented transition %s with its gate and hooks', (_name, row) => {
    const [match, ...more] = find(row.from, row.to);
    expect(match, `missing ${key(row)}`).toBeDefined();
    expect(more).toEqual([]);
    expect(match?.gate).toBe(row.gate);
    expect(match?.guard).toBeUndefined();
    expect(match?.hooks ?? []).toEqual(row.hooks);
  });

  it('has no transition beyond the seed rows and the documented departures, and no crash-only or forced one', () => {
    const expected = EXPECTED.map(key).sort();
    expect(transitions.map(key).sort()).toEqual(expected);
    expect(transitions.filter((t) => t.crash || t.force).map(key)).toEqual([]);
  });

  it('refuses every other pair of states', () => {
    const workflow = Workflow.load(pipelineWorkflow);
    const allowed = new Set(EXPECTED.map(key));
    const refused: string[] = [];
    for (const from of workflow.states) {
      for (const to of workflow.states) {
        const pair = key({ from, to });
        if (allowed.has(pair)) continue;
        refused.push(pair);
        expect([...workflow.between(from, to), ...workflow.between(from, to, true), ...workflow.forced(from, to)], pair).toEqual([]);
      }
    }
    // 12 states: 144 pairs, of which only the map's are allowed.
    expect(refused.length + allowed.size).toBe(144);
  });

  // Whether the pipeline plugin registers each of these gates is checked beside the plugin, from
  // what it registers (plugins/pipeline/src/workflow-gates.test.ts): the core cannot import it.
  it("names only pipeline- gates, none of them the core's own, and only the pipeline's, workspace and branch actions", () => {
    const actions = new Set(['acquire_workspace', 'release_workspace', 'start_pipeline', 'stop_pipeline', 'next_attempt', 'escalate_tier', 'save_memory', 'delete_remote_branch']);
    const gates = new Set(transitions.flatMap((t) => (t.gate ? [t.gate] : [])));
    expect([...gates].filter((g) => !g.startsWith('pipeline-') || g in builtinGates)).toEqual([]);
    expect(() => Workflow.load(pipelineWorkflow, { actions, gates })).not.toThrow();
  });
});
