import { describe, expect, it } from 'vitest';
import { displayWidth, padded, shown, shownPaneLine } from './shown-text.js';

describe('the sanitiser', () => {
  it('shows a task string as one inert line, cut with an ellipsis', () => {
    expect(shown('a\nb\u001b[2J')).toBe('a⏎b␛[2J');
    expect(shown('feature/very-long-branch', 10)).toBe('feature/v…');
  });

  it('keeps the colours of a captured pane line and makes every other escape inert', () => {
    expect(shownPaneLine('\u001b[31mred\u001b[0m \u001b]52;c;aGk=\u0007', true)).toBe('\u001b[31mred\u001b[0m ␛]52;c;aGk=␇\u001b[0m');
    expect(shownPaneLine('\u001b[1;32mok\u001b[0m', false)).toBe('ok');
    expect(shownPaneLine('\u001b[2Jcleared', true)).toBe('␛[2Jcleared');
  });
});

describe('display width', () => {
  it('counts east-asian wide characters and emoji as two columns, and never cuts one in half', () => {
    expect(displayWidth('功能/登录')).toBe(9);
    expect(shown('功能/登录表单', 7)).toBe('功能/…');
    expect(displayWidth(shown('功能/登录表单', 8))).toBeLessThanOrEqual(8);
    expect(shown('🚀 launch', 5)).toBe('🚀 l…');
    // A family emoji is one grapheme of width 2: kept whole or not at all.
    expect(shown('👨‍👩‍👧 x', 3)).toBe('👨‍👩‍👧…');
    expect(shown('👨‍👩‍👧 x', 2)).toBe('…');
  });

  it('pads to display columns', () => {
    expect(padded('功能', 6)).toBe('功能  ');
    expect(padded('ab', 6)).toBe('ab    ');
    expect(padded('toolong', 3)).toBe('toolong');
  });

  it('makes C1 controls inert too (an 8-bit CSI)', () => {
    expect(shown('a\u009b2Jb')).not.toContain('\u009b');
  });
});
