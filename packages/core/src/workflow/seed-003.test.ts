import { describe, expect, it } from 'vitest';
import { defaultWorkflow } from './default.js';
import type { TransitionDefinition } from './definition.js';

// Seed 003's transition table, verbatim. The built-in default workflow must be this table; the
// only differences allowed are the departures documented in docs/workflows.md, listed below.
const SEED_TABLE = `
| pending | planning | — | acquire_workspace, spawn_agent(worker) |
| pending | cancelled | — | — |
| planning | working | ## Plan valid | — |
| planning | clarification | — | — |
| planning | cancelled | — | kill_session, release_workspace |
| clarification | planning | — | — |
| clarification | cancelled | — | kill_session, release_workspace |
| working | agent-review | ## Handoff valid | spawn_reviewer, increment review_round |
| working | clarification | — | — |
| working | stuck | — | — |
| working | cancelled | — | kill_session, release_workspace |
| agent-review | reviewing | ## Review, Verdict: PASS | kill_reviewer |
| agent-review | working | ## Review, Verdict: FAIL, round < 2 | kill_reviewer, notify_worker |
| agent-review | stuck | ## Review, Verdict: FAIL, round ≥ 2 | kill_reviewer |
| agent-review | cancelled | — | kill_reviewer, kill_session, release_workspace |
| reviewing | working | — | notify_worker |
| reviewing | done | — | kill_session, release_workspace, delete_remote_branch, spawn_next |
| reviewing | cancelled | — | kill_session, release_workspace |
| stuck | reviewing | — | — |
| stuck | cancelled | — | kill_session, release_workspace |
`;

interface SeedRow {
  readonly from: string;
  readonly to: string;
  readonly gate: string | undefined;
  readonly guard: string | undefined;
  readonly hooks: string[];
}

function seedRows(): SeedRow[] {
  return SEED_TABLE.trim()
    .split('\n')
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()))
    .map(([from = '', to = '', gate = '', hooks = '']) => ({
      from,
      to,
      gate: gate === '—' ? undefined : /Plan/.test(gate) ? 'plan' : /Handoff/.test(gate) ? 'handoff' : /PASS/.test(gate) ? 'review-pass' : 'review-fail',
      guard: /round < 2/.test(gate) ? 'review_round < 2' : /round ≥ 2/.test(gate) ? 'review_round >= 2' : undefined,
      hooks: hooks === '—' ? [] : hooks.split(',').map((h) => h.trim().replace('(worker)', '').replace('increment review_round', 'increment_review_round')),
    }));
}

/** The documented departures (docs/workflows.md, "Departures from seed 003"), as hooks added. */
function withDepartures(row: SeedRow): string[] {
  const hooks = [...row.hooks];
  if (row.from === 'working' && row.to === 'agent-review') return ['increment_review_round', 'spawn_reviewer'];
  if (row.from === 'agent-review' && row.to === 'reviewing') hooks.push('notify_worker');
  if (row.to === 'stuck') hooks.push('notify_worker');
  return hooks;
}

const transitions = defaultWorkflow.transitions as readonly TransitionDefinition[];
const key = (t: { from: string; to: string; guard?: string | undefined }) => `${t.from} → ${t.to}${t.guard ? ` [${t.guard}]` : ''}`;

describe('the default workflow is seed 003', () => {
  it.each(seedRows().map((row) => [key(row), row] as const))('has the seed row %s with its gate, guard and hooks', (_name, row) => {
    const match = transitions.find((t) => !t.crash && t.from === row.from && t.to === row.to && (t.guard ?? undefined) === row.guard);
    expect(match, `missing ${key(row)}`).toBeDefined();
    expect(match?.gate).toBe(row.gate);
    expect(match?.hooks ?? []).toEqual(withDepartures(row));
  });

  it('has no request transition the seed does not list (crash-only and forced ones aside), but the documented reviewing → stuck', () => {
    const seed = new Set(seedRows().map(key));
    const extra = transitions.filter((t) => !t.crash && !t.force && !seed.has(key(t)));
    // Departure 7: a pull request reaction that gives up moves a task in reviewing to stuck.
    expect(extra.map(key)).toEqual(['reviewing → stuck']);
    expect(extra[0]?.gate).toBeUndefined();
    expect(extra[0]?.guard).toBeUndefined();
    expect(extra[0]?.hooks).toEqual(['notify_worker']);
  });

  it('adds a forced move into done from every active status, with the hooks of reviewing → done', () => {
    const merge = transitions.find((t) => t.from === 'reviewing' && t.to === 'done' && !t.force)?.hooks ?? [];
    const forced = transitions.filter((t) => t.force);
    expect(forced.map(key)).toEqual(['planning → done', 'clarification → done', 'working → done', 'agent-review → done', 'stuck → done']);
    for (const t of forced) expect(t.hooks.filter((h) => h !== 'kill_reviewer')).toEqual(merge);
  });

  it('adds only the two crash-limit transitions into stuck', () => {
    expect(transitions.filter((t) => t.crash).map(key)).toEqual(['planning → stuck', 'agent-review → stuck']);
  });
});
