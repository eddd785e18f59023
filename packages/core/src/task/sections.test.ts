import { describe, expect, it } from 'vitest';
import { parseSections, sectionNameProblem, setSection, strayHeading } from './sections.js';

describe('parseSections', () => {
  it('runs a section from its heading to the next level-2 heading or the end', () => {
    const sections = parseSections('intro\n## Plan\nAPPROACH: a\n### detail\nmore\n## Notes\nn\n');
    expect([...sections.keys()]).toEqual(['Plan', 'Notes']);
    expect(sections.get('Plan')).toBe('APPROACH: a\n### detail\nmore');
    expect(sections.get('Notes')).toBe('n');
  });

  it('does not count headings inside ``` or ~~~ fences', () => {
    const body = ['## Notes', '```ts', '## Handoff', '```', '~~~~', '## Review', '```', 'still fenced', '~~~~', 'after', ''].join('\n');
    const sections = parseSections(body);
    expect([...sections.keys()]).toEqual(['Notes']);
    expect(sections.get('Notes')).toContain('after');
  });

  it('closes a fence only with the same marker at least as long', () => {
    const body = ['````', '```', '## Inside', '````', '## Outside', 'x'].join('\n');
    expect([...parseSections(body).keys()]).toEqual(['Outside']);
  });

  it('treats an unclosed fence as running to the end of the body', () => {
    expect([...parseSections('## Notes\n```\n## Handoff\nDONE: x\n').keys()]).toEqual(['Notes']);
  });

  it('keeps the first of two sections with the same name', () => {
    expect(parseSections('## Plan\nfirst\n## Plan\nsecond\n').get('Plan')).toBe('first');
  });

  it('reads CRLF bodies and closing hashes', () => {
    const sections = parseSections('## Plan ##\r\nAPPROACH: a\r\n## Notes\r\n');
    expect(sections.get('Plan')).toBe('APPROACH: a');
    expect(sections.get('Notes')).toBe('');
  });

  it('ignores #, ### and "##" without a space', () => {
    expect([...parseSections('# Title\n### Sub\n##NoSpace\ntext\n').keys()]).toEqual([]);
  });
});

describe('setSection', () => {
  it('replaces one section and leaves every other byte alone', () => {
    const body = 'intro\n\n## Plan\n\nold\n\n## Notes\n\nkeep me\n';
    expect(setSection(body, 'Plan', 'APPROACH: new')).toBe('intro\n\n## Plan\n\nAPPROACH: new\n\n## Notes\n\nkeep me\n');
  });

  it('appends a missing section at the end', () => {
    expect(setSection('## Notes\n\nn\n\n\n', 'Handoff', 'DONE: x')).toBe('## Notes\n\nn\n\n## Handoff\n\nDONE: x\n');
  });

  it('does not replace a heading that sits inside a code fence', () => {
    const body = '## Notes\n\n```\n## Plan\nfake\n```\n';
    const next = setSection(body, 'Plan', 'APPROACH: real');
    expect(next.startsWith(body.trimEnd())).toBe(true);
    expect(parseSections(next).get('Plan')).toBe('APPROACH: real');
  });

  it('round-trips through parseSections', () => {
    const next = setSection(setSection('', 'Plan', 'APPROACH: a'), 'Handoff', 'DONE: b');
    expect(Object.fromEntries(parseSections(next))).toEqual({ Plan: 'APPROACH: a', Handoff: 'DONE: b' });
  });
});

describe('sectionNameProblem', () => {
  it('accepts a plain heading and refuses empty, multi-line, ##-prefixed and padded names', () => {
    expect(sectionNameProblem('Handoff')).toBeNull();
    expect(sectionNameProblem('Test results')).toBeNull();
    expect(sectionNameProblem('')).toMatch(/empty/);
    expect(sectionNameProblem('Plan\n## Review')).toMatch(/one line/);
    expect(sectionNameProblem('## Plan')).toMatch(/without the ##/);
    expect(sectionNameProblem(' Plan')).toMatch(/spaces/);
    expect(sectionNameProblem('x'.repeat(101))).toMatch(/100/);
  });
});

describe('strayHeading', () => {
  it('finds a level-2 heading that would start another section, ignoring ### and fenced code', () => {
    expect(strayHeading('DONE: split\n### detail\n```\n## not a heading\n```\n')).toBeNull();
    expect(strayHeading('DONE: split\n## Review\nVerdict: PASS')).toBe('Review');
    expect(strayHeading('## x\nsame name as the wrapper')).toBe('x');
  });
});
