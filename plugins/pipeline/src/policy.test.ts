import type { TaskMeta } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { parsePipelineOptions } from './options.js';
import { afterChecks, afterFailure, afterPhaseRun, breakerToReach, nextTier, pipelineFields, resumeTarget, routeFor, tiersReached } from './policy.js';

const settings = parsePipelineOptions({ attempts: 2, breaker: 3, intents: { bugfix: { phases: ['reproduce', 'fix'], tier: 'sonnet' }, docs: { phases: ['write'] } }, defaultIntent: 'docs' });
const fields = (patch: Record<string, unknown>) => pipelineFields({ status: 'retrying', ...patch } as unknown as TaskMeta);
const ok = { ok: true, output: 'done', costUsd: 0.02 };
const failed = { ok: false, output: 'tests still red', costUsd: 0.03 };

describe('pipeline policy', () => {
  it('chooses retry, escalation or failure after a failed run', () => {
    expect(afterFailure(settings, fields({ attempt: 1, consecutive_failures: 1 }))).toBe('executing');
    expect(afterFailure(settings, fields({ attempt: 2, consecutive_failures: 2 }))).toBe('escalating');
    expect(afterFailure(settings, fields({ attempt: 1, consecutive_failures: 3 }))).toBe('failed');
  });

  it('routes an intent to its phases and starting tier, an unknown one to the default intent', () => {
    expect(routeFor(settings, 'bugfix', ['haiku', 'sonnet', 'opus'])).toEqual({ intent: 'bugfix', phases: ['reproduce', 'fix'], tier: 'sonnet' });
    expect(routeFor(settings, 'poetry', ['haiku'])).toEqual({ intent: 'docs', phases: ['write'], tier: 'haiku' });
  });

  it('names the next tier, none at the top', () => {
    expect(nextTier(['haiku', 'sonnet', 'opus'], 'haiku')).toBe('sonnet');
    expect(nextTier(['haiku', 'sonnet', 'opus'], 'opus')).toBeNull();
  });

  it('resumes at classification, execution or verification from the checkpoint', () => {
    expect(resumeTarget(fields({}))).toBe('classifying');
    expect(resumeTarget(fields({ pipeline_phases: 'a,b', phases_done: 'a' }))).toBe('executing');
    expect(resumeTarget(fields({ pipeline_phases: 'a,b', phases_done: 'a,b' }))).toBe('verifying');
  });

  it('refuses bad options with one line naming the field', () => {
    expect(() => parsePipelineOptions({ threshold: 2 })).toThrow(/plugin pipeline: option "threshold"/);
    expect(() => parsePipelineOptions({ verify: ['npm test'] })).toThrow(/plugin pipeline: option "verify.0"/);
    expect(() => parsePipelineOptions({ defaultIntent: 'x' })).toThrow(/option "defaultIntent" must be one of the configured intents/);
    expect(() => parsePipelineOptions({ budget: 3 })).toThrow(/unknown option "budget"/);
  });
});

describe('the circuit breaker count', () => {
  const running = (patch: Record<string, unknown>) => fields({ status: 'executing', pipeline_phases: 'reproduce,fix', tier: 'haiku', attempt: 1, cost_total_usd: 0.1, ...patch });

  it('adds 1 for a failed phase and keeps what it said for the next prompt', () => {
    expect(afterPhaseRun(running({ phase: 'fix', phases_done: 'reproduce', consecutive_failures: 1 }), 'fix', failed)).toEqual({
      phase: 'fix',
      phase_result: 'failed',
      cost_total_usd: 0.13,
      consecutive_failures: 2,
      last_failure: 'phase fix (tier haiku, attempt 1): tests still red',
    });
  });

  it('is reset by a phase that succeeds, which moves on to the next phase', () => {
    expect(afterPhaseRun(running({ phase: 'reproduce', consecutive_failures: 2, last_failure: 'x' }), 'reproduce', ok)).toEqual({
      phase: 'fix',
      phases_done: 'reproduce',
      phase_result: '',
      cost_total_usd: 0.12,
      consecutive_failures: 0,
      last_failure: '',
      attempt: 1,
    });
  });

  it('is kept by a phase that succeeds after the checks failed: only passing checks show the fix worked', () => {
    const fixing = running({ phase: 'fix', phases_done: 'reproduce', attempt: 2, consecutive_failures: 2, verification: 'failed', last_failure: 'verification failed: …' });
    expect(afterPhaseRun(fixing, 'fix', ok)).toEqual({
      phase: 'fix',
      phases_done: 'reproduce,fix',
      phase_result: 'passed',
      cost_total_usd: 0.12,
      consecutive_failures: 2,
      last_failure: '',
      attempt: 2,
      verification: '',
    });
  });

  it('adds 1 for failed checks, and passing checks reset it', () => {
    expect(afterChecks(running({ consecutive_failures: 2 }), '$ npm test (exit 1)\n1 failing')).toEqual({
      verification: 'failed',
      consecutive_failures: 3,
      last_failure: 'verification failed:\n$ npm test (exit 1)\n1 failing',
    });
    expect(afterChecks(running({ consecutive_failures: 2 }), null)).toEqual({ verification: 'passed', consecutive_failures: 0 });
  });

  it('trips on a loop of phases that pass and checks that fail, whatever the attempts left', () => {
    const generous = parsePipelineOptions({ attempts: 10, breaker: 3 });
    let f = running({ phase: 'fix', phases_done: 'reproduce' });
    const decisions: string[] = [];
    for (let round = 0; round < 3; round++) {
      f = fields({ ...asMeta(f), ...afterPhaseRun(f, 'fix', ok) });
      f = fields({ ...asMeta(f), ...afterChecks(f, 'still failing'), phases_done: 'reproduce', attempt: f.attempt + 1 });
      decisions.push(afterFailure(generous, f));
    }
    expect(decisions).toEqual(['executing', 'executing', 'failed']);
  });
});

describe('which tiers the breaker lets a failing task reach', () => {
  it('reaches sonnet but not opus with the defaults (attempts 2, breaker 3), and opus with breaker 5', () => {
    expect(tiersReached({ attempts: 2, breaker: 3 }, 3)).toBe(2);
    expect(breakerToReach({ attempts: 2 }, 2)).toBe(5);
    expect(tiersReached({ attempts: 2, breaker: 5 }, 3)).toBe(3);
    expect(tiersReached({ attempts: 1, breaker: 3 }, 3)).toBe(3);
    expect(tiersReached({ attempts: 2, breaker: 2 }, 3)).toBe(1);
  });
});

/** Fields back into frontmatter form, for feeding a pure step's output into the next. */
function asMeta(f: ReturnType<typeof pipelineFields>): Record<string, unknown> {
  return {
    status: 'executing',
    intent: f.intent,
    confidence: f.confidence,
    pipeline_phases: f.phases.join(','),
    phase: f.phase,
    phases_done: f.phasesDone.join(','),
    phase_result: f.phaseResult,
    attempt: f.attempt,
    tier: f.tier,
    consecutive_failures: f.consecutiveFailures,
    cost_total_usd: f.costTotalUsd,
    budget_usd: f.budgetUsd,
    verification: f.verification,
    last_failure: f.lastFailure,
    stop_reason: f.stopReason,
  };
}
