import type { HistoryEvent } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { historyText } from './detail-pane.js';

const at = '2026-01-01T14:02:00.000Z';

describe('the history timeline', () => {
  it('prints a status change as a transition, with its cause', () => {
    expect(historyText({ type: 'status.changed', timestamp: at, from: 'working', to: 'agent-review', cause: 'request' } as HistoryEvent)).toBe('14:02 working → agent-review (request)');
  });

  it('prints a failed hook as a failure naming its action and error, not as a transition', () => {
    const line = historyText({ type: 'hook.failed', timestamp: at, hook: 'spawn_agent', from: 'reviewing', to: 'reviewing', error: 'tmux new-window failed: no space' } as HistoryEvent);
    expect(line).toBe('14:02 hook.failed spawn_agent: tmux new-window failed: no space');
    expect(line).not.toContain('→');
  });

  it('prints a notice to the worker and an automatic move by their type, not as a repeat of the transition above', () => {
    expect(historyText({ type: 'worker.notified', timestamp: at, session: 's', from: 'agent-review', to: 'reviewing' } as HistoryEvent)).toBe('14:02 worker.notified');
    expect(historyText({ type: 'auto.advanced', timestamp: at, from: 'agent-review', to: 'reviewing', reason: 'reviewer exited' } as HistoryEvent)).toBe('14:02 auto.advanced (reviewer exited)');
  });
});
