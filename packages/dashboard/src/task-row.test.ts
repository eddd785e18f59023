import { describe, expect, it } from 'vitest';
import { checksMark } from './task-row.js';

describe('checksMark', () => {
  it('says ✗ for any failed or cancelled check, … while one runs, ✓ when all passed or were skipped', () => {
    expect(checksMark([{ state: 'success' }, { state: 'failure' }, { state: 'pending' }])).toBe('✗');
    expect(checksMark([{ state: 'success' }, { state: 'cancelled' }])).toBe('✗');
    expect(checksMark([{ state: 'success' }, { state: 'pending' }])).toBe('…');
    expect(checksMark([{ state: 'success' }, { state: 'skipped' }])).toBe('✓');
  });
  it('has no mark for a pull request without checks', () => {
    expect(checksMark([])).toBeNull();
  });
});
