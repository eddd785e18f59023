import { describe, expect, it } from 'vitest';
import { mergeLines } from './line-merge.js';

const BASE = ['# Task', '', '## Plan', 'APPROACH: a', '', '## Notes', 'n1', ''].join('\n');

describe('mergeLines', () => {
  it('takes the only side that changed', () => {
    const edited = BASE.replace('n1', 'n1\nn2');
    expect(mergeLines(BASE, edited, BASE)).toBe(edited);
    expect(mergeLines(BASE, BASE, edited)).toBe(edited);
  });

  it('applies edits of different places from both sides', () => {
    const first = BASE.replace('APPROACH: a', 'APPROACH: b');
    const second = BASE.replace('n1', 'n1\nn2');
    expect(mergeLines(BASE, first, second)).toBe(BASE.replace('APPROACH: a', 'APPROACH: b').replace('n1', 'n1\nn2'));
  });

  it('keeps both sides, first then second, where both appended at the same place', () => {
    const first = `${BASE}edit-1\n`;
    const second = `${BASE}edit-2\n`;
    const merged = mergeLines(BASE, first, second);
    expect(merged.split('\n').filter((l) => l.startsWith('edit-'))).toEqual(['edit-1', 'edit-2']);
    expect(merged.startsWith(BASE)).toBe(true);
  });

  it('keeps both versions of a line both sides rewrote differently, dropping neither', () => {
    const merged = mergeLines(BASE, BASE.replace('n1', 'mine'), BASE.replace('n1', 'theirs'));
    expect(merged).toContain('mine');
    expect(merged).toContain('theirs');
    expect(merged).not.toContain('n1');
  });

  it('takes an identical change once', () => {
    const both = BASE.replace('n1', 'same');
    expect(mergeLines(BASE, both, both)).toBe(both);
  });

  it('keeps every line of both sides when the texts are too large to align', () => {
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    const merged = mergeLines(big, `${big}\nfirst`, `${big}\nsecond`);
    expect(merged.endsWith('second\nfirst')).toBe(true);
  });
});

describe('mergeLines with one side already holding the other', () => {
  it('does not repeat lines the second side copied from the first', () => {
    const first = `${BASE}edit-1\n`;
    const second = `${BASE}edit-1\nedit-2\n`;
    expect(mergeLines(BASE, first, second)).toBe(second);
  });
});
