import { parseSections, type Sections } from '../task/index.js';
import type { Task } from '../task/index.js';

/** What a gate sees: the task as it is on disk and the transition being asked for. */
export interface GateContext {
  readonly task: Task;
  readonly sections: Sections;
  readonly from: string;
  readonly to: string;
}

export type GateResult = { ok: true } | { ok: false; reason: string };

/** A named artifact check. Plugins may register their own (a test-running gate, say). */
export type Gate = (context: GateContext) => GateResult | Promise<GateResult>;

export type ReviewVerdict = 'pass' | 'fail';

const PASS: GateResult = { ok: true };
const fail = (reason: string): GateResult => ({ ok: false, reason });

/** Returns the content after `FIELD:` on the first line that has one with content, per field list. */
function hasField(section: string, fields: readonly string[]): boolean {
  const pattern = new RegExp(`^\\s*(?:[-*]\\s+)?(?:\\*\\*|__)?(${fields.join('|')})(?:\\*\\*|__)?\\s*:(?:\\*\\*|__)?[ \\t]*(\\S.*)?$`);
  return section.split('\n').some((line) => {
    const match = pattern.exec(line);
    return match !== null && (match[2] ?? '').replace(/[*_`\s]/g, '') !== '';
  });
}

function fieldGate(section: string, fields: readonly string[]): Gate {
  return ({ sections }) => {
    const content = sections.get(section);
    if (content === undefined) return fail(`TASK.md has no ## ${section} section`);
    if (content === '') return fail(`## ${section} is empty`);
    if (!hasField(content, fields)) {
      return fail(`## ${section} needs a line ${fields.map((f) => `${f}:`).join(' or ')} with content after the colon`);
    }
    return PASS;
  };
}

/** Reads the verdict from a `## Review` section: its first non-empty line must be `Verdict: PASS|FAIL`. */
export function reviewVerdict(section: string | undefined): ReviewVerdict | null {
  if (section === undefined) return null;
  const first = section.split('\n').find((line) => line.trim() !== '');
  if (first === undefined) return null;
  // Markdown emphasis is tolerated: `**Verdict: PASS**`, `_Verdict_: fail`.
  const plain = first.replace(/[*_`]/g, '').trim();
  const match = /^verdict\s*:\s*(pass|fail)\s*\.?$/i.exec(plain);
  return match ? ((match[1] as string).toLowerCase() as ReviewVerdict) : null;
}

function reviewGate(expected: ReviewVerdict): Gate {
  return ({ sections }) => {
    const content = sections.get('Review');
    if (content === undefined) return fail('TASK.md has no ## Review section');
    if (content === '') return fail('## Review is empty');
    const verdict = reviewVerdict(content);
    if (verdict === null) return fail('## Review must start with a line "Verdict: PASS" or "Verdict: FAIL"');
    if (verdict !== expected) {
      return fail(`## Review says Verdict: ${verdict.toUpperCase()} but this transition needs Verdict: ${expected.toUpperCase()}`);
    }
    return PASS;
  };
}

/** The built-in gates (seed 003 rules), by the names workflows use. */
export const builtinGates: Readonly<Record<string, Gate>> = Object.freeze({
  plan: fieldGate('Plan', ['APPROACH', 'TOUCHING']),
  handoff: fieldGate('Handoff', ['DONE', 'REMAINING', 'DECISIONS', 'UNCERTAIN']),
  'review-pass': reviewGate('pass'),
  'review-fail': reviewGate('fail'),
});

/** Convenience for callers that have a body, not parsed sections. */
export function gateContext(task: Task, from: string, to: string): GateContext {
  return { task, sections: parseSections(task.body), from, to };
}
