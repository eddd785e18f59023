import { describe, expect, it } from 'vitest';
import { shown, shownPaneLine } from './shown-text.js';

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
