/**
 * The guard language: `field op literal`, e.g. `review_round < 2` or `confidence >= 0.6`.
 * Deliberately tiny: guards are data in a workflow and must be checkable at load time.
 */
export type GuardOperator = '<' | '<=' | '>' | '>=' | '==' | '!=';
export type GuardLiteral = number | string | boolean | null;

export interface Guard {
  readonly source: string;
  readonly field: string;
  readonly op: GuardOperator;
  readonly value: GuardLiteral;
}

export type GuardParse = { ok: true; guard: Guard } | { ok: false; error: string };

const GUARD_PATTERN = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|==|!=|<|>)\s*(.+?)\s*$/;
const NUMBER_PATTERN = /^-?(?:\d+(?:\.\d+)?|\.\d+)$/;
const BARE_WORD_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Parses a guard expression; never throws. */
export function parseGuard(source: string): GuardParse {
  const match = GUARD_PATTERN.exec(source);
  if (!match) {
    return { ok: false, error: `guard "${source}" is not of the form "field op literal" (op is one of < <= > >= == !=)` };
  }
  const [, field, op, raw] = match as unknown as [string, string, GuardOperator, string];
  const value = parseLiteral(raw);
  if (value === undefined) {
    return { ok: false, error: `guard "${source}" has an unreadable literal "${raw}"` };
  }
  if ((op === '<' || op === '<=' || op === '>' || op === '>=') && typeof value !== 'number') {
    return { ok: false, error: `guard "${source}" compares with ${op} but "${raw}" is not a number` };
  }
  return { ok: true, guard: { source, field, op, value } };
}

function parseLiteral(raw: string): GuardLiteral | undefined {
  // Past Number.MAX_VALUE (some 309 digits) a literal reads as ±Infinity, which guardsOverlap's intervals cannot hold.
  if (NUMBER_PATTERN.test(raw)) {
    const number = Number(raw);
    return Number.isFinite(number) ? number : undefined;
  }
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  const quoted = /^"([^"]*)"$|^'([^']*)'$/.exec(raw);
  if (quoted) return quoted[1] ?? quoted[2] ?? '';
  if (BARE_WORD_PATTERN.test(raw)) return raw;
  return undefined;
}

/** Evaluates a parsed guard against a record of fields (a task's frontmatter). */
export function evaluateGuard(guard: Guard, fields: Readonly<Record<string, unknown>>): boolean {
  const actual = fields[guard.field];
  const expected = guard.value;
  switch (guard.op) {
    case '==':
      return looselyEqual(actual, expected);
    case '!=':
      return !looselyEqual(actual, expected);
    default: {
      const n = typeof actual === 'number' ? actual : typeof actual === 'string' && NUMBER_PATTERN.test(actual) ? Number(actual) : NaN;
      if (Number.isNaN(n) || typeof expected !== 'number') return false;
      if (guard.op === '<') return n < expected;
      if (guard.op === '<=') return n <= expected;
      if (guard.op === '>') return n > expected;
      return n >= expected;
    }
  }
}

function looselyEqual(actual: unknown, expected: GuardLiteral): boolean {
  if (actual === undefined) return expected === null;
  if (typeof expected === 'number' && typeof actual === 'string' && NUMBER_PATTERN.test(actual)) {
    return Number(actual) === expected;
  }
  return actual === expected;
}

/**
 * True when some value of the field could satisfy both guards. Used at load time to refuse
 * two transitions on the same from→to pair that could both apply (the machine must be deterministic).
 * Guards on different fields are assumed to overlap: nothing proves they exclude each other.
 */
export function guardsOverlap(a: Guard, b: Guard): boolean {
  if (a.field !== b.field) return true;
  const numeric = (g: Guard) => typeof g.value === 'number';
  if (numeric(a) && numeric(b)) return intervalsIntersect(toIntervals(a), toIntervals(b));
  // Loosely, as evaluateGuard compares: the field value "1" satisfies both `== 1` and `== "1"`.
  if (a.op === '==' && b.op === '==') return looselyEqual(a.value, b.value) || looselyEqual(b.value, a.value);
  if (a.op === '==' && b.op === '!=') return a.value !== b.value;
  if (a.op === '!=' && b.op === '==') return a.value !== b.value;
  return true;
}

interface Interval {
  lo: number;
  loOpen: boolean;
  hi: number;
  hiOpen: boolean;
}

function toIntervals(g: Guard): Interval[] {
  const v = g.value as number;
  switch (g.op) {
    case '<':
      return [{ lo: -Infinity, loOpen: true, hi: v, hiOpen: true }];
    case '<=':
      return [{ lo: -Infinity, loOpen: true, hi: v, hiOpen: false }];
    case '>':
      return [{ lo: v, loOpen: true, hi: Infinity, hiOpen: true }];
    case '>=':
      return [{ lo: v, loOpen: false, hi: Infinity, hiOpen: true }];
    case '==':
      return [{ lo: v, loOpen: false, hi: v, hiOpen: false }];
    case '!=':
      return [
        { lo: -Infinity, loOpen: true, hi: v, hiOpen: true },
        { lo: v, loOpen: true, hi: Infinity, hiOpen: true },
      ];
  }
}

function intervalsIntersect(as: Interval[], bs: Interval[]): boolean {
  return as.some((a) =>
    bs.some((b) => {
      const lo = Math.max(a.lo, b.lo);
      const hi = Math.min(a.hi, b.hi);
      if (lo < hi) return true;
      if (lo > hi) return false;
      const loOpen = (a.lo === lo && a.loOpen) || (b.lo === lo && b.loOpen);
      const hiOpen = (a.hi === hi && a.hiOpen) || (b.hi === hi && b.hiOpen);
      return !loOpen && !hiOpen;
    }),
  );
}
