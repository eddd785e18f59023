import { describe, expect, it } from 'vitest';
import { relativeTime, shown, shownPaneLine } from './shown-text.js';

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

  it('says how long ago', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(relativeTime('2026-01-01T11:59:48Z', now)).toBe('12s ago');
    expect(relativeTime('2026-01-01T11:56:00Z', now)).toBe('4m ago');
    expect(relativeTime('2026-01-01T11:00:00Z', now)).toBe('1h ago');
  });
});
