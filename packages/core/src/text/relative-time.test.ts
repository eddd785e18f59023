import { describe, expect, it } from 'vitest';
import { relativeTime } from './relative-time.js';

describe('relativeTime', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it('says how long ago in the largest whole unit', () => {
    expect(relativeTime('2026-01-01T11:59:48Z', now)).toBe('12s ago');
    expect(relativeTime('2026-01-01T11:56:00Z', now)).toBe('4m ago');
    expect(relativeTime('2026-01-01T11:00:00Z', now)).toBe('1h ago');
    expect(relativeTime('2025-12-29T12:00:00Z', now)).toBe('3d ago');
  });
  it('shows a future date as 0s ago and a date that does not parse as ?', () => {
    expect(relativeTime('2026-01-01T12:00:05Z', now)).toBe('0s ago');
    expect(relativeTime('not a date', now)).toBe('?');
  });
});
