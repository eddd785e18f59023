import { describe, expect, it } from 'vitest';
import { OrangeError } from '../errors/index.js';
import { checkSection } from './section-check.js';

/** The refusal `checkSection` throws for these arguments (it must throw an OrangeError). */
function refusal(name: string, content: string): OrangeError {
  try {
    checkSection(name, content);
  } catch (error) {
    expect(error).toBeInstanceOf(OrangeError);
    return error as OrangeError;
  }
  throw new Error(`checkSection accepted section "${name}"`);
}

const MB = 1024 * 1024;

describe('checkSection', () => {
  it('refuses a bad name as E_INVALID_INPUT, showing at most 60 characters of it', () => {
    expect(refusal('## Handoff', 'DONE: x')).toMatchObject({ code: 'E_INVALID_INPUT', message: 'section "## Handoff": give the name without the ## (e.g. Handoff)' });
    // A name too long to be one is shown cut short: the message stays one readable line.
    const long = 'N'.repeat(101);
    expect(refusal(long, 'text').message).toBe(`section "${'N'.repeat(60)}": a section name must be at most 100 characters`);
    expect(refusal('Two\nlines', 'text').message).toBe('section "Two lines": a section name must be one line of printable text');
  });

  it('takes a text of exactly 1 MB and refuses one byte more', () => {
    expect(() => checkSection('Notes', 'x'.repeat(MB))).not.toThrow();
    // Bytes, not characters: "é" is two bytes in UTF-8.
    expect(refusal('Notes', `${'x'.repeat(MB - 1)}é`)).toMatchObject({ code: 'E_INVALID_INPUT', message: 'section Notes: the text is larger than 1 MB' });
    expect(refusal('Notes', 'x'.repeat(MB + 1)).message).toBe('section Notes: the text is larger than 1 MB');
  });

  it('refuses a text with a level-2 heading of its own, showing at most 60 characters of the heading', () => {
    expect(refusal('Handoff', 'DONE: x\n## Review\nVerdict: PASS')).toMatchObject({
      code: 'E_INVALID_INPUT',
      message: 'section Handoff: the text has its own level-2 heading "## Review", which would start another section; use ### inside a section',
    });
    const heading = 'H'.repeat(80);
    expect(refusal('Handoff', `DONE: x\n## ${heading}\n`).message).toBe(
      `section Handoff: the text has its own level-2 heading "## ${'H'.repeat(60)}", which would start another section; use ### inside a section`,
    );
  });

  it('takes deeper headings and a ## inside fenced code', () => {
    expect(() => checkSection('Handoff', 'DONE: x\n### Details\nmore\n```\n## not a heading\n```\n')).not.toThrow();
  });
});
