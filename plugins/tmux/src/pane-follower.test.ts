import type { TerminalSize } from '@orange/core';
import { describe, expect, it } from 'vitest';
import type { ControlMessage } from './control-mode.js';
import { PaneFollower } from './pane-follower.js';

const ids = { session: '$1', window: '@2', pane: '%3' };

/** A follower of pane %3 (window @2, session $1) and everything it did. */
function follower() {
  const did = {
    commands: [] as string[],
    screens: [] as Array<{ data: string; size: TerminalSize }>,
    output: '',
    ends: [] as string[],
  };
  const followed = new PaneFollower(ids, {
    command: (line) => did.commands.push(line),
    screen: (data, size) => did.screens.push({ data, size }),
    output: (data) => (did.output += Buffer.from(data).toString('utf8')),
    end: (reason) => did.ends.push(reason),
  });
  return { follower: followed, did };
}

const output = (pane: string, text: string): ControlMessage => ({ kind: 'output', pane, data: Buffer.from(text) });
const reply = (lines: string[], ok = true): ControlMessage => ({ kind: 'reply', ours: true, ok, lines: lines.map((l) => Buffer.from(l)) });
const notice = (name: string, ...args: string[]): ControlMessage => ({ kind: 'notice', name, args });
/** The two answers to one screen read: the pane is 80×3, the cursor at (x 2, y 1). */
const screenAnswers = (...rows: string[]): ControlMessage[] => [reply(['80 3 2 1 1 0 0 0 2']), reply(rows)];
const READ = /^display-message -p -t '%3' '.*' ; capture-pane -p -e -t '%3'$/;

describe('PaneFollower', () => {
  it("reads the screen first, drops the pane's output that arrives before the answer (it is on the screen), then passes output on", () => {
    const { follower: f, did } = follower();
    f.start();
    expect(did.commands).toHaveLength(1);
    expect(did.commands[0]).toMatch(READ);
    f.take(output('%3', 'already on the screen'));
    for (const answer of screenAnswers('$ ls', 'a  b')) f.take(answer);
    f.take(output('%3', 'after'));
    expect(did.screens).toEqual([{ data: '\u001b[H\u001b[2J$ ls\r\na  b\u001b[0m\u001b[2;3H', size: { cols: 80, rows: 3 } }]);
    expect(did.output).toBe('after');
  });

  it("ignores answers that are not to its commands (the attach's own), and other clients' blocks", () => {
    const { follower: f, did } = follower();
    f.start();
    f.take({ kind: 'reply', ours: false, ok: true, lines: [] });
    for (const answer of screenAnswers('x')) f.take(answer);
    expect(did.screens).toHaveLength(1);
  });

  it('pauses another pane of the session the first time it prints, once', () => {
    const { follower: f, did } = follower();
    f.start();
    for (const answer of screenAnswers('x')) f.take(answer);
    f.take(output('%7', 'the reviewer'));
    f.take(output('%7', 'more of it'));
    expect(did.commands.slice(1)).toEqual(["refresh-client -A '%7:pause'"]);
    expect(did.output).toBe('');
    // Not while reading: no second screen.
    f.take(reply([]));
    expect(did.commands).toHaveLength(2);
  });

  it("reads the screen again when another pane printed during a read (the pane's output may have overtaken the answer)", () => {
    const { follower: f, did } = follower();
    f.start();
    f.take(output('%7', 'the reviewer'));
    const [state, capture] = screenAnswers('first');
    f.take(state!);
    f.take(capture!);
    expect(did.commands[1]).toBe("refresh-client -A '%7:pause'");
    expect(did.commands[2]).toMatch(READ);
    f.take(reply([])); // the pause's answer
    f.take(output('%3', 'dropped: read again'));
    for (const answer of screenAnswers('second')) f.take(answer);
    f.take(output('%3', 'kept'));
    expect(did.screens.map((s) => s.data)).toEqual([expect.stringContaining('first'), expect.stringContaining('second')]);
    expect(did.output).toBe('kept');
  });

  it("reads a new screen when its window's layout changes, once however many changes come during a read", () => {
    const { follower: f, did } = follower();
    f.start();
    f.take(notice('layout-change', '@2', 'b25d,100x30,0,0,3'));
    f.take(notice('layout-change', '@2', 'b25d,110x30,0,0,3'));
    f.take(notice('layout-change', '@9', 'other window'));
    for (const answer of screenAnswers('x')) f.take(answer);
    expect(did.commands).toHaveLength(2);
    for (const answer of screenAnswers('y')) f.take(answer);
    expect(did.commands).toHaveLength(2);
    expect(did.screens).toHaveLength(2);
  });

  it('ends once, when its window closes (either notification), and then does nothing more', () => {
    for (const name of ['window-close', 'unlinked-window-close']) {
      const { follower: f, did } = follower();
      f.start();
      for (const answer of screenAnswers('x')) f.take(answer);
      f.take(notice(name, '@9'));
      expect(did.ends).toEqual([]);
      f.take(notice(name, '@2'));
      f.take({ kind: 'exit', reason: '' });
      f.take(output('%3', 'late'));
      expect(did.ends).toEqual(["the agent's window closed"]);
      expect(did.output).toBe('');
    }
  });

  it('ends when tmux ends the client, or moves it to another session', () => {
    const exit = follower();
    exit.follower.start();
    exit.follower.take({ kind: 'exit', reason: 'server exited' });
    expect(exit.did.ends).toEqual(['tmux ended the stream: server exited']);

    const moved = follower();
    moved.follower.start();
    moved.follower.take(notice('session-changed', '$1', 'demo/abc'));
    expect(moved.did.ends).toEqual([]);
    moved.follower.take(notice('session-changed', '$4', 'another'));
    expect(moved.did.ends).toEqual(["the agent's session ended"]);
  });

  it("ends with tmux's words when the pane cannot be read", () => {
    const { follower: f, did } = follower();
    f.start();
    f.take(reply(["can't find pane: %3"], false));
    f.take(reply(["can't find pane: %3"], false));
    expect(did.ends).toEqual(["tmux could not read the agent's pane: can't find pane: %3"]);
    expect(did.screens).toEqual([]);
  });
});
