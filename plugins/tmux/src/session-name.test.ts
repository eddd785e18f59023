import { describe, expect, it } from 'vitest';
import { sessionName, taskSession, windowName, isReviewerWindow, windowTarget, sessionTarget } from './session-name.js';

const ID = 'V1StGXR8Z5jdHi6BmyT4a';

describe('sessionName', () => {
  it('names the session <project>/<task id>', () => {
    expect(sessionName({ project: 'web', id: ID })).toBe(`web/${ID}`);
  });

  it('maps the . of a project name (which tmux rejects) to _', () => {
    expect(sessionName({ project: 'my.app', id: ID })).toBe(`my_app/${ID}`);
  });

  it('never contains a character tmux escapes, splits on or expands, whatever the branch', () => {
    const name = sessionName({ project: 'a.b_c-d', id: ID });
    expect(name).toMatch(/^[A-Za-z0-9_/-]+$/);
  });
});

describe('taskSession', () => {
  it('prefers the recorded session, which keeps naming the task’s agents', () => {
    expect(taskSession({ project: 'p', id: ID, tmux_session: 'p/orange-tasks/old' })).toBe('p/orange-tasks/old');
    expect(taskSession({ project: 'p.q', id: ID, tmux_session: null })).toBe(`p_q/${ID}`);
  });
});

describe('windows and targets', () => {
  it('puts the worker in window worker and each reviewer in its own review-<round>-<spawn>', () => {
    expect(windowName({ review_round: 2, reviewer_spawn: null }, 'worker')).toBe('worker');
    expect(windowName({ review_round: 2, reviewer_spawn: 'Qm2c8RfT1a' }, 'reviewer')).toBe('review-2-Qm2c8RfT1a');
    // A workflow that never counts rounds still gets one name per spawn.
    expect(windowName({ review_round: 0, reviewer_spawn: null }, 'reviewer', 'a1')).not.toBe(windowName({ review_round: 0, reviewer_spawn: null }, 'reviewer', 'b2'));
  });

  it('finds a reviewer window by its spawn, or any reviewer window when none is recorded', () => {
    expect(isReviewerWindow('review-1-Qm2c8RfT1a', 'Qm2c8RfT1a')).toBe(true);
    expect(isReviewerWindow('review-3-Qm2c8RfT1a', 'Qm2c8RfT1a')).toBe(true);
    expect(isReviewerWindow('review-1-Qm2c8RfT1a', 'other')).toBe(false);
    expect(isReviewerWindow('review-1-Qm2c8RfT1a', null)).toBe(true);
    expect(isReviewerWindow('review-10', null)).toBe(false);
    expect(isReviewerWindow('worker', null)).toBe(false);
  });

  it('targets sessions and windows exactly, never by prefix', () => {
    expect(sessionTarget('a/b')).toBe('=a/b');
    expect(windowTarget('a/b', 'review-1')).toBe('=a/b:=review-1');
  });
});
