import { describe, expect, it } from 'vitest';
import { sessionName, taskSession, windowName, windowTarget, sessionTarget } from './session-name.js';

describe('sessionName', () => {
  it('names the session <project>/<branch>', () => {
    expect(sessionName({ project: 'web', branch: 'feat/login' })).toBe('web/feat/login');
  });

  it('maps the characters tmux rejects (. and :) to _', () => {
    expect(sessionName({ project: 'my.app', branch: 'fix/v1.2.3' })).toBe('my_app/fix/v1_2_3');
    expect(sessionName({ project: 'a', branch: 'x:y' })).toBe('a/x_y');
  });

  it('maps the same task to the same name every time', () => {
    const task = { project: 'p.q', branch: 'orange-tasks/abc.d' };
    expect(sessionName(task)).toBe(sessionName({ ...task }));
  });

  it('keeps every other character as it is', () => {
    expect(sessionName({ project: 'p_1-x', branch: 'feat/#12-émoji+plus' })).toBe('p_1-x/feat/#12-émoji+plus');
  });
});

describe('taskSession', () => {
  it('prefers the recorded session, which survives a branch rename', () => {
    expect(taskSession({ project: 'p', branch: 'renamed', tmux_session: 'p/orange-tasks/old' })).toBe('p/orange-tasks/old');
    expect(taskSession({ project: 'p', branch: 'b.1', tmux_session: null })).toBe('p/b_1');
  });
});

describe('windows and targets', () => {
  it('puts the worker in window worker and reviewers in review-<round>', () => {
    expect(windowName({ review_round: 2 }, 'worker')).toBe('worker');
    expect(windowName({ review_round: 2 }, 'reviewer')).toBe('review-2');
  });

  it('targets sessions and windows exactly, never by prefix', () => {
    expect(sessionTarget('a/b')).toBe('=a/b');
    expect(windowTarget('a/b', 'review-1')).toBe('=a/b:=review-1');
  });
});
