import { describe, expect, it } from 'vitest';
import { builtinGates, gateContext, reviewVerdict, type GateResult } from './gates.js';
import { newTaskMeta } from '../store/task-file.js';

const ID = 'V1StGXR8Z5jdHi6BmyTaK';

async function check(gate: string, body: string, from = 'x', to = 'y'): Promise<GateResult> {
  const task = { meta: newTaskMeta({ id: ID, project: 'demo', branch: 'b', status: from }), body };
  return (builtinGates[gate] as NonNullable<(typeof builtinGates)[string]>)(gateContext(task, from, to));
}

const refused = (reason: string | RegExp) => ({ ok: false, reason: typeof reason === 'string' ? reason : expect.stringMatching(reason) });

describe('the plan gate', () => {
  it('passes with an APPROACH: line that has content', async () => {
    expect(await check('plan', '## Plan\n\nAPPROACH: split the parser\n')).toEqual({ ok: true });
  });

  it('passes with only a TOUCHING: line that has content', async () => {
    expect(await check('plan', '## Plan\nTOUCHING: src/parser.ts\n')).toEqual({ ok: true });
  });

  it('passes when the APPROACH: line comes after prose', async () => {
    expect(await check('plan', '## Plan\nI will split the parser.\nAPPROACH: parser first, then the lexer\n')).toEqual({ ok: true });
  });

  it('refuses a task with no ## Plan section, naming the section', async () => {
    expect(await check('plan', '## Notes\nAPPROACH: in the wrong section\n')).toEqual(refused('TASK.md has no ## Plan section'));
  });

  it('refuses an empty ## Plan section', async () => {
    expect(await check('plan', '## Plan\n\n   \n## Notes\nAPPROACH: elsewhere\n')).toEqual(refused('## Plan is empty'));
  });

  it('refuses APPROACH: with nothing after it and names what is missing', async () => {
    expect(await check('plan', '## Plan\nAPPROACH:\nTOUCHING:   \n')).toEqual(
      refused('## Plan needs a line APPROACH: or TOUCHING: with content after the colon'),
    );
  });

  it('refuses prose that never uses a field', async () => {
    expect(await check('plan', '## Plan\nI will split the parser.\n')).toEqual(refused(/needs a line APPROACH:/));
  });
});

describe('the handoff gate', () => {
  it.each(['DONE', 'REMAINING', 'DECISIONS', 'UNCERTAIN'])('passes with a %s: line that has content', async (field) => {
    expect(await check('handoff', `## Handoff\n${field}: something\n`)).toEqual({ ok: true });
  });

  it('refuses DONE: with nothing after it', async () => {
    expect(await check('handoff', '## Handoff\nDONE:\n')).toEqual(
      refused('## Handoff needs a line DONE: or REMAINING: or DECISIONS: or UNCERTAIN: with content after the colon'),
    );
  });

  it('refuses DONE: followed only by markdown emphasis or spaces', async () => {
    expect(await check('handoff', '## Handoff\nDONE: ** **\nREMAINING: `` \n')).toMatchObject({ ok: false });
  });

  it('accepts bullets and bold field names', async () => {
    expect(await check('handoff', '## Handoff\n- **DONE:** the parser\n')).toEqual({ ok: true });
    expect(await check('handoff', '## Handoff\n* **DONE**: the parser\n')).toEqual({ ok: true });
  });

  it('does not count lower-case field names (the fields are upper-case by rule)', async () => {
    expect(await check('handoff', '## Handoff\ndone: the parser\n')).toMatchObject({ ok: false });
  });

  it('does not count a field that is part of a longer word', async () => {
    expect(await check('handoff', '## Handoff\nUNDONE: nothing\nDONE_LATER: x\n')).toMatchObject({ ok: false });
  });

  it('does not count a ## Handoff heading inside a fenced code block', async () => {
    const body = ['## Notes', '```md', '## Handoff', 'DONE: pasted from an example', '```', ''].join('\n');
    expect(await check('handoff', body)).toEqual(refused('TASK.md has no ## Handoff section'));
  });

  it('does not count a ### Handoff sub-heading', async () => {
    expect(await check('handoff', '## Notes\n### Handoff\nDONE: x\n')).toEqual(refused('TASK.md has no ## Handoff section'));
  });

  it('stops the section at the next level-2 heading', async () => {
    expect(await check('handoff', '## Handoff\n## Notes\nDONE: belongs to Notes\n')).toEqual(refused('## Handoff is empty'));
  });
});

describe('the review gates', () => {
  it('accept "Verdict: PASS" for review-pass and "Verdict: FAIL" for review-fail', async () => {
    expect(await check('review-pass', '## Review\nVerdict: PASS\nclean\n')).toEqual({ ok: true });
    expect(await check('review-fail', '## Review\nVerdict: FAIL\nbroken\n')).toEqual({ ok: true });
  });

  it('accepts a bold verdict: **Verdict: PASS**', async () => {
    expect(await check('review-pass', '## Review\n**Verdict: PASS**\n')).toEqual({ ok: true });
  });

  it('accepts a lower-case verdict', async () => {
    expect(await check('review-pass', '## Review\nverdict: pass\n')).toEqual({ ok: true });
    expect(await check('review-fail', '## Review\nVERDICT: Fail.\n')).toEqual({ ok: true });
  });

  it('skips blank lines before the verdict', async () => {
    expect(await check('review-fail', '## Review\n\n\n  Verdict: FAIL  \n')).toEqual({ ok: true });
  });

  it('refuses a PASS verdict on the review-fail path, naming both verdicts', async () => {
    expect(await check('review-fail', '## Review\nVerdict: PASS\n')).toEqual(
      refused('## Review says Verdict: PASS but this transition needs Verdict: FAIL'),
    );
  });

  it('refuses a FAIL verdict on the review-pass path', async () => {
    expect(await check('review-pass', '## Review\n**Verdict: FAIL**\n')).toEqual(
      refused('## Review says Verdict: FAIL but this transition needs Verdict: PASS'),
    );
  });

  it('refuses a verdict that is not on the first non-empty line', async () => {
    expect(await check('review-pass', '## Review\nLooks good.\nVerdict: PASS\n')).toEqual(
      refused('## Review must start with a line "Verdict: PASS" or "Verdict: FAIL"'),
    );
  });

  it('refuses a verdict line with more words after it', async () => {
    expect(await check('review-pass', '## Review\nVerdict: PASS with nits\n')).toMatchObject({ ok: false });
  });

  it('refuses a missing or empty ## Review', async () => {
    expect(await check('review-pass', '## Handoff\nDONE: x\n')).toEqual(refused('TASK.md has no ## Review section'));
    expect(await check('review-fail', '## Review\n\n')).toEqual(refused('## Review is empty'));
  });

  it('refuses a verdict wrapped in a code fence', async () => {
    const body = ['## Review', '~~~', 'Verdict: PASS', '~~~', ''].join('\n');
    expect(await check('review-pass', body)).toMatchObject({ ok: false });
  });
});

describe('reviewVerdict', () => {
  it.each([
    ['Verdict: PASS', 'pass'],
    ['**Verdict: PASS**', 'pass'],
    ['_Verdict_: fail', 'fail'],
    ['verdict:fail', 'fail'],
    ['Verdict: PASS.', 'pass'],
    ['Verdict : FAIL', 'fail'],
    ['  Verdict: PASS  ', 'pass'],
    ['Verdict: maybe', null],
    ['Verdict: PASSED', null],
    ['Final verdict: PASS', null],
    ['PASS', null],
    ['', null],
  ])('reads %j as %s', (line, verdict) => {
    expect(reviewVerdict(`${line}\nmore`)).toBe(verdict);
  });

  it('is null for a missing section', () => {
    expect(reviewVerdict(undefined)).toBeNull();
  });

  it('is null for a section with no non-empty line', () => {
    expect(reviewVerdict('')).toBeNull();
    expect(reviewVerdict('  \n\t\n')).toBeNull();
  });

  it('skips empty and blank lines before the verdict', () => {
    expect(reviewVerdict('\n   \nVerdict: FAIL\nbroken')).toBe('fail');
  });
});
