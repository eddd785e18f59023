import { describe, expect, it } from 'vitest';
import { fakeRow, workflowOf } from '../test/fake-dashboard.js';
import { defaultWorkflow } from '@orange/core';
import { checksMark, livenessOf, rowOf } from './task-row.js';

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
  it('is starting once the status that starts its agent is entered, until its spawn is recorded, a hook fails or a minute passes', () => {
    const before = fakeRow({ status: 'pending', updated_at: '2026-01-01T10:00:00.000Z' });
    const at = Date.parse('2026-01-01T10:00:05.000Z');
    const entered = rowOf(workflowOf(defaultWorkflow), ['working'], { meta: { ...before.meta, status: 'planning' }, tampered: [] }, before, at);
    expect(livenessOf(entered, [], at + 1_000)).toBe('starting');
    expect(livenessOf(entered, [], at + 61_000)).toBe('dead');
    const failed = rowOf(workflowOf(defaultWorkflow), ['working'], { meta: { ...entered.meta, attention: 'spawn_agent failed' }, tampered: [] }, entered, at);
    expect(livenessOf(failed, [], at + 1_000)).toBe('dead');
  });

  it('is dead, not starting, when the agent of the same status exited and was handled (its spawn cleared)', () => {
    const at = Date.parse('2026-01-01T10:00:05.000Z');
    const running = fakeRow({ status: 'planning', worker_spawn: 'S1', updated_at: '2026-01-01T10:00:00.000Z' });
    const handled = rowOf(workflowOf(defaultWorkflow), ['working'], { meta: { ...running.meta, worker_spawn: null, crash_count: 1 }, tampered: [] }, running, at);
    expect(livenessOf(handled, [], at + 1_000)).toBe('dead');
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
