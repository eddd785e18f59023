import { describe, expect, it } from 'vitest';
import { fakeRow } from '../test/fake-dashboard.js';
import { checksMark, livenessOf } from './task-row.js';

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

describe('livenessOf: the four faces', () => {
  it('is starting while the status has started its agent and no spawn is recorded, unless a hook failed or a minute passed', () => {
    const starting = fakeRow({ status: 'planning', updated_at: '2026-01-01T10:00:00.000Z' });
    const at = Date.parse('2026-01-01T10:00:05.000Z');
    expect(livenessOf(starting, [], at)).toBe('starting');
    expect(livenessOf(fakeRow({ status: 'planning', attention: 'spawn_agent failed', updated_at: '2026-01-01T10:00:00.000Z' }), [], at)).toBe('dead');
    expect(livenessOf(starting, [], at + 60_000)).toBe('dead');
  });

  it('is dead when a recorded agent does not run, alive when one runs', () => {
    const recorded = fakeRow({ status: 'working', worker_spawn: 'S1' });
    expect(livenessOf(recorded, [])).toBe('dead');
    expect(livenessOf(recorded, ['worker'])).toBe('alive');
  });

  it('is none by design where a person reviews and no worker was ever started, and for waiting or finished tasks', () => {
    expect(livenessOf(fakeRow({ status: 'reviewing' }), [])).toBe('none');
    expect(livenessOf(fakeRow({ status: 'pending' }), [])).toBe('none');
    expect(livenessOf(fakeRow({ status: 'done' }), [])).toBe('none');
  });
});
