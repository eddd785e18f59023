import { describe, expect, it } from 'vitest';
import { stripAnsi, transcriptText } from './ansi';

describe('stripAnsi', () => {
  it('removes colours, cursor moves, titles and other escape families', () => {
    expect(stripAnsi('\u001b[1;31mred\u001b[0m plain')).toBe('red plain');
    expect(stripAnsi('a\u001b[2J\u001b[H\u001b[?25lb')).toBe('ab');
    expect(stripAnsi('\u001b]0;title\u0007text\u001b]8;;https://x\u001b\\link\u001b]8;;\u001b\\')).toBe('textlink');
    expect(stripAnsi('\u001bP+q544e\u001b\\x\u001b(By\u001b=z\u009b31mw')).toBe('xyzw');
  });

  it('leaves text without escapes as it is', () => {
    expect(stripAnsi('plain [brackets] and 100%')).toBe('plain [brackets] and 100%');
  });
});

describe('transcriptText', () => {
  it('shows a line overwritten with carriage returns as it was left', () => {
    expect(transcriptText('progress 10%\rprogress 100%\r\ndone\r\n')).toBe('progress 100%\ndone\n');
    expect(transcriptText('abcdef\rXY')).toBe('XYcdef');
  });

  it('applies backspaces and makes leftover controls visible', () => {
    expect(transcriptText('tyop\b\bpo')).toBe('typo');
    expect(transcriptText('bell\u0007 \u202eevil')).toBe('bell␇ \\u202eevil');
  });
});
