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

const lines = (...l: string[]) => l.join('\n');

describe('mergeLines aligning both sides with the base', () => {
  it('keeps a line the first side inserted at the top and the second side edit at the bottom', () => {
    expect(mergeLines(lines('a', 'b', 'c'), lines('new', 'a', 'b', 'c'), lines('a', 'b', 'C'))).toBe(lines('new', 'a', 'b', 'C'));
  });

  it('applies the first side deleting the first line and the second side editing the last', () => {
    expect(mergeLines(lines('a', 'b', 'c'), lines('b', 'c'), lines('a', 'b', 'C'))).toBe(lines('b', 'C'));
  });

  it('applies a line the second side deleted and one the first side edited', () => {
    expect(mergeLines(lines('a', 'b', 'c', 'd'), lines('A', 'b', 'c', 'd'), lines('a', 'b', 'd'))).toBe(lines('A', 'b', 'd'));
  });

  it('applies a line the second side rewrote and one the first side edited', () => {
    expect(mergeLines(lines('a', 'b', 'c', 'd'), lines('A', 'b', 'c', 'd'), lines('a', 'b', 'C', 'd'))).toBe(lines('A', 'b', 'C', 'd'));
  });

  it('applies a line the first side moved to the top and a line the second side edited', () => {
    expect(mergeLines(lines('a', 'b', 'c', 'd'), lines('d', 'a', 'b', 'c'), lines('a', 'B', 'c', 'd'))).toBe(lines('d', 'a', 'B', 'c'));
  });

  it('keeps both rewrites of the same line, first then second, and the unchanged line before them once', () => {
    expect(mergeLines(lines('a', 'b'), lines('a', 'B'), lines('a', 'C'))).toBe(lines('a', 'B', 'C'));
  });

  it('takes edits of adjacent lines as one conflict, keeping both versions of the pair', () => {
    expect(mergeLines(lines('p', 'q'), lines('p', 'Q'), lines('P', 'q'))).toBe(lines('p', 'Q', 'P', 'q'));
  });

  it('keeps both lines the two sides inserted before the same line, first then second', () => {
    expect(mergeLines('', lines('first', ''), lines('second', ''))).toBe(lines('first', 'second', ''));
  });

  // Repeated lines (blank ones above all) can be aligned several ways; each side's change must still land once.
  it('applies a blank line one side removed and another the other side rewrote, among repeated blank lines', () => {
    expect(mergeLines(lines('', '', ''), lines('', ''), lines('rewritten', '', ''))).toBe(lines('rewritten', ''));
  });

  it('applies deletions by both sides among repeated lines', () => {
    expect(mergeLines(lines('a', '', '', 'a', ''), lines('a', '', 'a', ''), lines('', '', 'a', ''))).toBe(lines('', 'a', ''));
  });

  it('keeps an edit inside lines the other side cut off, when the first line repeats after them', () => {
    // The second side ends where a line of the base that comes again later matched: aligning it must stop there.
    expect(mergeLines(lines('--', 'a', '--'), lines('--', 'A', '--'), '--')).toBe(lines('--', 'A', '--'));
  });

  it('does not repeat lines the first side already holds from the second', () => {
    const base = lines('t', 'x', '');
    const first = lines('t', 'x', 'e1', 'e2', '');
    expect(mergeLines(base, first, lines('t', 'x', 'e1', ''))).toBe(first);
  });
});

describe('mergeLines on large texts', () => {
  const big = (count: number) => Array.from({ length: count }, (_, i) => `line ${i}`);

  // Above the alignment limit only a shortcut keeps a deletion: the fallback would bring the deleted line back.
  it('returns the second side as is when the first is unchanged, even above the alignment limit', () => {
    const base = big(2001);
    const second = base.filter((_, i) => i !== 5).join('\n');
    expect(mergeLines(base.join('\n'), base.join('\n'), second)).toBe(second);
  });

  it('returns the first side as is when the second is unchanged, even above the alignment limit', () => {
    const base = big(2001);
    const first = base.filter((_, i) => i !== 5).join('\n');
    expect(mergeLines(base.join('\n'), first, base.join('\n'))).toBe(first);
  });

  it('still aligns at exactly 4,000,000 line pairs (base lines times the longer side)', () => {
    const base = big(2000);
    const first = base.map((l, i) => (i === 10 ? 'first' : l));
    const second = base.map((l, i) => (i === 1990 ? 'second' : l));
    const merged = mergeLines(base.join('\n'), first.join('\n'), second.join('\n'));
    expect(merged).toBe(base.map((l, i) => (i === 10 ? 'first' : i === 1990 ? 'second' : l)).join('\n'));
  });

  it('falls back when the longer side goes over the limit, although the shorter one would not', () => {
    const base = big(2000);
    // 2000 × 2001 pairs with the first side, 2000 × 1999 with the second.
    const first = [...base, 'appended'];
    const second = base.slice(1);
    const merged = mergeLines(base.join('\n'), first.join('\n'), second.join('\n'));
    // The fallback: the second side, then the first side's lines it lacks (the deleted line comes back, after them).
    expect(merged).toBe([...second, 'line 0', 'appended'].join('\n'));
  });
});
