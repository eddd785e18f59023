import { describe, expect, it } from 'vitest';
import { evaluateGuard, guardsOverlap, parseGuard, type Guard } from './guard.js';

function guard(source: string): Guard {
  const parsed = parseGuard(source);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.guard;
}

describe('parseGuard', () => {
  it.each([
    ['review_round < 2', { field: 'review_round', op: '<', value: 2 }],
    ['confidence >= 0.6', { field: 'confidence', op: '>=', value: 0.6 }],
    ['delta > -1', { field: 'delta', op: '>', value: -1 }],
    ['x<=.5', { field: 'x', op: '<=', value: 0.5 }],
    ['status == working', { field: 'status', op: '==', value: 'working' }],
    ['model != gpt-5.1', { field: 'model', op: '!=', value: 'gpt-5.1' }],
    ['summary == "a b"', { field: 'summary', op: '==', value: 'a b' }],
    ["summary == 'x'", { field: 'summary', op: '==', value: 'x' }],
    ['flag == true', { field: 'flag', op: '==', value: true }],
    ['flag != false', { field: 'flag', op: '!=', value: false }],
    ['pr_url == null', { field: 'pr_url', op: '==', value: null }],
  ])('parses %j', (source, expected) => {
    expect(parseGuard(source)).toEqual({ ok: true, guard: { source, ...expected } });
  });

  it.each(['review_round = 2', 'review_round =< 2', 'review_round ~ 2'])(
    'refuses the bad operator in %j, listing the operators',
    (source) => {
      expect(parseGuard(source)).toEqual({
        ok: false,
        error: `guard "${source}" is not of the form "field op literal" (op is one of < <= > >= == !=)`,
      });
    },
  );

  it('refuses <> (the part after < is no literal)', () => {
    expect(parseGuard('review_round <> 2')).toEqual({ ok: false, error: 'guard "review_round <> 2" has an unreadable literal "> 2"' });
  });

  it.each(['review_round <', 'review_round', 'review_round <  '])('refuses %j, which has no literal', (source) => {
    expect(parseGuard(source)).toMatchObject({ ok: false, error: expect.stringContaining(`guard "${source}"`) });
  });

  it.each(['1x < 2', 'task.round < 2', '< 2', '', 'review_round() < 2'])('refuses %j, which has no identifier on the left', (source) => {
    expect(parseGuard(source)).toMatchObject({ ok: false, error: expect.stringContaining('is not of the form') });
  });

  it.each([
    ['review_round < 2 && crash_count < 1', '2 && crash_count < 1'],
    ['summary == a b', 'a b'],
    ['summary == "unclosed', '"unclosed'],
    ['x == (1)', '(1)'],
  ])('refuses the unreadable literal in %j', (source, raw) => {
    expect(parseGuard(source)).toEqual({ ok: false, error: `guard "${source}" has an unreadable literal "${raw}"` });
  });

  it('refuses an ordering comparison with a non-number', () => {
    expect(parseGuard('status < working')).toEqual({
      ok: false,
      error: 'guard "status < working" compares with < but "working" is not a number',
    });
    expect(parseGuard('x >= "2"')).toMatchObject({ ok: false, error: expect.stringContaining('is not a number') });
  });

  it('never throws, whatever the input', () => {
    for (const source of ['\u0000', '<<<<', '== ==', ' '.repeat(10_000), 'a '.repeat(5_000)]) {
      expect(() => parseGuard(source)).not.toThrow();
    }
  });
});

describe('evaluateGuard', () => {
  it('compares numbers, and numeric strings as numbers', () => {
    expect(evaluateGuard(guard('review_round < 2'), { review_round: 1 })).toBe(true);
    expect(evaluateGuard(guard('review_round < 2'), { review_round: 2 })).toBe(false);
    expect(evaluateGuard(guard('review_round >= 2'), { review_round: '2' })).toBe(true);
    expect(evaluateGuard(guard('x == 2'), { x: '2' })).toBe(true);
  });

  it('makes an ordering comparison false when the field is not a number', () => {
    expect(evaluateGuard(guard('x < 2'), { x: 'abc' })).toBe(false);
    expect(evaluateGuard(guard('x >= 2'), {})).toBe(false);
    expect(evaluateGuard(guard('x < 2'), { x: null })).toBe(false);
  });

  it('treats a missing field as null for == and !=', () => {
    expect(evaluateGuard(guard('pr_url == null'), {})).toBe(true);
    expect(evaluateGuard(guard('pr_url != null'), {})).toBe(false);
    expect(evaluateGuard(guard('pr_url != null'), { pr_url: 'https://x' })).toBe(true);
  });

  it('compares strings and booleans exactly', () => {
    expect(evaluateGuard(guard('model == gpt-5'), { model: 'gpt-5' })).toBe(true);
    expect(evaluateGuard(guard('model == gpt-5'), { model: 'GPT-5' })).toBe(false);
    expect(evaluateGuard(guard('flag == true'), { flag: 'true' })).toBe(false);
  });
});

describe('guardsOverlap', () => {
  it.each([
    ['review_round < 2', 'review_round >= 2', false],
    ['review_round < 2', 'review_round <= 3', true],
    ['a <= 2', 'a >= 2', true],
    ['a < 2', 'a > 1', true],
    ['a > 2', 'a < 2', false],
    ['a == 1', 'a != 1', false],
    ['a == 1', 'a == 2', false],
    ['a == 1', 'a > 0', true],
    ['a != 1', 'a != 2', true],
    ['m == x', 'm == y', false],
    ['m == x', 'm != y', true],
    ['m == x', 'm != x', false],
    ['a < 2', 'b >= 2', true],
  ])('%s / %s overlap: %s', (a, b, overlap) => {
    expect(guardsOverlap(guard(a), guard(b))).toBe(overlap);
    expect(guardsOverlap(guard(b), guard(a))).toBe(overlap);
  });
});
