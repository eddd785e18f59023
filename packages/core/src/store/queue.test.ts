/**
 * Whether a task waits for a person (`task create --no-spawn`) or for a freed worktree, as its
 * history says.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from './history.js';
import { isHeld } from './queue.js';

const at = '2024-01-01T00:00:00.000Z';
const created = (fields: Record<string, unknown> = {}): HistoryEvent => ({ type: 'task.created', timestamp: at, status: 'pending', ...fields });
const queued: HistoryEvent = { type: 'task.queued', timestamp: at };
const moved: HistoryEvent = { type: 'status.changed', timestamp: at, from: 'pending', to: 'planning' };

describe('isHeld', () => {
  it('is false for a task with no history', () => {
    expect(isHeld([])).toBe(false);
  });

  it('is false for a task created to start now', () => {
    expect(isHeld([created()])).toBe(false);
    expect(isHeld([created({ held: false })])).toBe(false);
  });

  it('is true for a task created held, and stays so through other events', () => {
    expect(isHeld([created({ held: true })])).toBe(true);
    expect(isHeld([created({ held: true }), moved])).toBe(true);
  });

  it('takes only a literal true as held (a hand-edited "yes" is not)', () => {
    expect(isHeld([created({ held: 'yes' })])).toBe(false);
  });

  it('is false once the held task was asked to start (task.queued), and stays so', () => {
    expect(isHeld([created({ held: true }), queued])).toBe(false);
    expect(isHeld([created({ held: true }), queued, moved])).toBe(false);
    expect(isHeld([created(), queued])).toBe(false);
  });

  it('goes by the last task.created when a history holds more than one', () => {
    expect(isHeld([created(), queued, created({ held: true })])).toBe(true);
    expect(isHeld([created({ held: true }), created()])).toBe(false);
  });
});
