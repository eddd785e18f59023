import type { HistoryEvent } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { historyText, questionLines } from './detail-pane.js';

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

describe('the questions of a task waiting for an answer', () => {
  it('are a heading and the text wrapped at spaces to the width, control characters made visible', () => {
    expect(questionLines('1. Which form crashes: login or sign-up?\n\u001b[2Jcleared', 20, 10)).toEqual(['## Questions', '1. Which form', 'crashes: login or', 'sign-up?', '␛[2Jcleared']);
  });

  it('keep their end when they do not fit (the latest round is last), the heading saying how much is above', () => {
    const text = ['Asked (round 1):', '1. first?', 'Answered: no', 'Asked (round 2):', '1. second?'].join('\n');
    expect(questionLines(text, 40, 3)).toEqual(['## Questions (3 more lines above: v)', 'Asked (round 2):', '1. second?']);
    expect(questionLines(text, 40, 1)).toEqual(['## Questions (5 more lines above: v)']);
    expect(questionLines(text, 40, 0)).toEqual([]);
  });
});
