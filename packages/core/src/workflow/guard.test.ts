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
    ["summary == 'two words'", { field: 'summary', op: '==', value: 'two words' }],
    ['version == "2"', { field: 'version', op: '==', value: '2' }],
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

  it.each(['a"b"', '"a"b', "a'b'", "'a'b"])('refuses %j, whose quotes do not enclose the whole literal', (raw) => {
    expect(parseGuard(`x == ${raw}`)).toEqual({ ok: false, error: `guard "x == ${raw}" has an unreadable literal "${raw}"` });
  });

  it('refuses a number literal too large to be finite', () => {
    const huge = '9'.repeat(400);
    expect(parseGuard(`x < ${huge}`)).toMatchObject({ ok: false, error: expect.stringContaining('has an unreadable literal') });
    expect(parseGuard(`x == -${huge}`)).toMatchObject({ ok: false, error: expect.stringContaining('has an unreadable literal') });
  });

  it.each(['<', '<=', '>', '>='])('refuses %s with a non-number literal', (op) => {
    expect(parseGuard(`round ${op} two`)).toEqual({
      ok: false,
      error: `guard "round ${op} two" compares with ${op} but "two" is not a number`,
    });
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

  it.each([
    ['<', [false, false, true]],
    ['<=', [false, true, true]],
    ['>', [true, false, false]],
    ['>=', [true, true, false]],
  ] as const)('orders with %s, including or excluding the literal itself', (op, [above, at, below]) => {
    const g = guard(`x ${op} 2`);
    expect([evaluateGuard(g, { x: 3 }), evaluateGuard(g, { x: 2 }), evaluateGuard(g, { x: 1 })]).toEqual([above, at, below]);
  });

  it.each(['', ' 1', '0x1'])('reads only plain decimal strings as numbers, not %j', (value) => {
    expect(evaluateGuard(guard('x < 2'), { x: value })).toBe(false);
  });

  it('does not read a list as a number, even a list of one number', () => {
    expect(evaluateGuard(guard('x < 2'), { x: [1] })).toBe(false);
    expect(evaluateGuard(guard('x == 2'), { x: [2] })).toBe(false);
  });

  it('compares a number with a numeric string by value', () => {
    expect(evaluateGuard(guard('x == 2'), { x: '3' })).toBe(false);
    expect(evaluateGuard(guard('x == 2'), { x: '2.0' })).toBe(true);
  });

  it('compares a quoted literal as a string, even when it looks like a number', () => {
    expect(evaluateGuard(guard('version == "2"'), { version: '2' })).toBe(true);
    expect(evaluateGuard(guard('version == "2"'), { version: 2 })).toBe(false);
  });

  it('never holds an ordering comparison whose literal is not a number (a Guard built by hand)', () => {
    const below10: Guard = { source: 'x < "10"', field: 'x', op: '<', value: '10' };
    expect(evaluateGuard(below10, { x: 9 })).toBe(false);
    const atLeastNull: Guard = { source: 'x >= null', field: 'x', op: '>=', value: null };
    expect(evaluateGuard(atLeastNull, { x: 1 })).toBe(false);
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
    expect(evaluateGuard(guard('status == working'), {})).toBe(false);
    expect(evaluateGuard(guard('status != working'), {})).toBe(true);
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

  const bothWays = (a: Guard, b: Guard) => [guardsOverlap(a, b), guardsOverlap(b, a)];

  it.each([
    ['a <= 2', 'a > 2', false],
    ['a > 2', 'a == 2', false],
    ['a >= 2', 'a == 2', true],
  ])("includes a bound's number only when the bound does: %s / %s overlap: %s", (a, b, overlap) => {
    expect(bothWays(guard(a), guard(b))).toEqual([overlap, overlap]);
  });

  it('reads >= as a half-line, not a point', () => {
    expect(bothWays(guard('a >= 2'), guard('a > 5'))).toEqual([true, true]);
  });

  it('reads != on a number as both sides of it', () => {
    expect(bothWays(guard('a != 1'), guard('a < 1'))).toEqual([true, true]);
    expect(bothWays(guard('a != 1'), guard('a > 1'))).toEqual([true, true]);
  });

  it.each([
    ['m == x', 'm == x', true],
    ['m != x', 'm != x', true],
    ['m != x', 'm != y', true],
    ['a == 1', 'a == x', false],
  ])('compares words with == and != by value: %s / %s overlap: %s', (a, b, overlap) => {
    expect(bothWays(guard(a), guard(b))).toEqual([overlap, overlap]);
  });

  it('sees that the field value "1" satisfies both == 1 and == "1"', () => {
    expect(bothWays(guard('a == 1'), guard('a == "1"'))).toEqual([true, true]);
    expect(bothWays(guard('a == true'), guard('a == "true"'))).toEqual([false, false]);
  });

  it('assumes overlap when an ordering guard built by hand has a non-number literal', () => {
    const below: Guard = { source: 'm < x', field: 'm', op: '<', value: 'x' };
    expect(bothWays(guard('m == x'), below)).toEqual([true, true]);
  });
});
