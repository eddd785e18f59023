import { describe, expect, it } from 'vitest';
import type { TransitionDefinition } from './definition.js';
import { pipelineWorkflow } from './pipeline.js';
import { Workflow } from './workflow.js';

// Seed 002's transitions, verbatim (from → to: condition), with the gate or guard that states the
// condition in the built-in pipeline workflow. The departures documented in docs/workflows.md
// ("Departures from seed 002") are listed apart.
const SEED_ROWS: ReadonlyArray<readonly [string, string, string, { gate?: string; guard?: string }]> = [
  ['created', 'classifying', 'generate id, read configs, create checkpoint', {}],
  ['classifying', 'routing', 'confidence >= 0.6', { gate: 'pipeline-confident' }],
  ['classifying', 'awaiting_clarification', 'confidence < 0.6', { gate: 'pipeline-unsure' }],
  ['awaiting_clarification', 'classifying', 'user provides more info', {}],
  ['routing', 'executing', 'select pipeline, assign agents', { gate: 'pipeline-routed' }],
  ['executing', 'verifying', 'current phase completed successfully', { gate: 'pipeline-phases-done' }],
  ['executing', 'retrying', 'phase failed, retries remaining, budget available', { guard: 'phase_result == "failed"' }],
  ['executing', 'stopped', 'budget exceeded or user cancelled', {}],
  ['retrying', 'executing', 'same model tier retry', { gate: 'pipeline-same-tier' }],
  ['retrying', 'escalating', 'attempts >= escalation threshold', { gate: 'pipeline-tier-used-up' }],
  ['escalating', 'executing', 're-run phase with upgraded model', { gate: 'pipeline-higher-tier' }],
  ['verifying', 'completed', 'all checks pass', { guard: 'verification == "passed"' }],
  ['verifying', 'retrying', 'verification failed', { guard: 'verification == "failed"' }],
];

/** Seed rows the workflow replaces: the breaker and the top tier end `failed`, not `stopped`. */
const REPLACED: ReadonlyArray<readonly [string, string, string, { gate: string }]> = [
  ['retrying', 'stopped', 'retrying → failed', { gate: 'pipeline-breaker-tripped' }],
  ['escalating', 'stopped', 'escalating → failed', { gate: 'pipeline-top-tier' }],
];

const transitions = pipelineWorkflow.transitions as readonly TransitionDefinition[];
const find = (from: string, to: string) => transitions.filter((t) => t.from === from && t.to === to);

describe('the pipeline workflow is seed 002', () => {
  it('has every state of the seed, completed and failed terminal', () => {
    const workflow = Workflow.load(pipelineWorkflow);
    expect(workflow.states).toEqual(['created', 'classifying', 'awaiting_clarification', 'routing', 'executing', 'retrying', 'escalating', 'verifying', 'completed', 'failed', 'stopped']);
    expect(workflow.states.filter((s) => workflow.isTerminal(s))).toEqual(['completed', 'failed']);
  });

  it.each(SEED_ROWS.map((row) => [`${row[0]} → ${row[1]} (${row[2]})`, row] as const))('has the seed row %s with its condition', (_name, [from, to, , condition]) => {
    const [match, ...more] = find(from, to);
    expect(match, `missing ${from} → ${to}`).toBeDefined();
    expect(more).toEqual([]);
    expect(match?.gate).toBe(condition.gate);
    expect(match?.guard).toBe(condition.guard);
  });

  it.each(REPLACED.map((row) => [`${row[0]} → ${row[1]}`, row] as const))('replaces the seed row %s by the documented transition into failed', (_name, [from, , , { gate }]) => {
    expect(find(from, 'failed')).toMatchObject([{ gate }]);
  });

  it('can be stopped from every running state and resumed from stopped', () => {
    for (const from of ['classifying', 'routing', 'executing', 'retrying', 'escalating', 'verifying']) expect(find(from, 'stopped'), from).toHaveLength(1);
    for (const to of ['classifying', 'executing', 'verifying']) expect(find('stopped', to)).toMatchObject([{ gate: 'pipeline-resumable', hooks: ['start_pipeline'] }]);
  });

  it('refuses pairs the seed does not allow', () => {
    const workflow = Workflow.load(pipelineWorkflow);
    for (const [from, to] of [
      ['created', 'executing'],
      ['classifying', 'executing'],
      ['routing', 'verifying'],
      ['executing', 'completed'],
      ['executing', 'escalating'],
      ['verifying', 'executing'],
      ['escalating', 'retrying'],
      ['completed', 'executing'],
      ['failed', 'retrying'],
      ['stopped', 'completed'],
    ] as const) {
      expect(workflow.between(from, to), `${from} → ${to}`).toEqual([]);
    }
  });

  it('is valid against the actions and gates the pipeline plugin provides', () => {
    const actions = new Set(['acquire_workspace', 'release_workspace', 'start_pipeline', 'stop_pipeline', 'next_attempt', 'escalate_tier']);
    const gates = new Set(transitions.flatMap((t) => (t.gate ? [t.gate] : [])));
    expect([...gates].every((g) => g.startsWith('pipeline-'))).toBe(true);
    expect(() => Workflow.load(pipelineWorkflow, { actions, gates })).not.toThrow();
  });
});
