import { describe, expect, it } from 'vitest';
import { clip, historyLine, table } from '../src/output/render.js';

describe('table', () => {
  it('pads columns to the width of the cleaned cells, each row on one line', () => {
    const out = table(['A', 'B'], [['x\x1b[2J\ny', 'end'], ['\u009b', 'end']]);
    expect(out.split('\n')).toEqual(['A        B', 'x␛[2J⏎y  end', '\\u009b   end']);
  });
});

describe('clip', () => {
  it('cuts the cleaned text, so the limit counts what is shown', () => {
    expect(clip('\u009b\u009b', 8)).toBe('\\u009b\\…');
    expect(clip('a\nb', 5)).toBe('a⏎b');
  });

  it('never splits an emoji in half', () => {
    expect(clip('ab😀cd', 5)).toBe('ab😀…');
    expect(clip('abc😀d', 5)).toBe('abc…');
  });
});

describe('historyLine', () => {
  it('shows the facts of an event as one inert line', () => {
    const line = historyLine({ timestamp: 't', type: 'hook.failed', hook: 'h', error: 'a\x1b]0;x\x07\nb' });
    expect(line).toBe('t  hook.failed  hook=h error=a␛]0;x␇⏎b');
  });
});
