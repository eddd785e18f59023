/**
 * The live terminal (`Runtime.terminal`) against a real tmux server of its own: agents spawned
 * the way Orange spawns them, followed through a control-mode client.
 */
import type { Runtime, Task, TerminalListener, TerminalSize, TerminalStream } from '@orange/core';
import { waitFor } from '@orange/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tmuxSandbox, type TmuxSandbox } from '../test/tmux-sandbox.js';
import { TmuxClient } from './tmux-client.js';
import { TmuxRuntime } from './tmux-runtime.js';

let box: TmuxSandbox;
let runtime: Runtime;
const opened: TerminalStream[] = [];

beforeAll(async () => {
  box = await tmuxSandbox();
  runtime = box.orange.slot('runtime');
});
afterEach(async () => {
  // A test that failed half-way leaves no client behind for the next one to count.
  await Promise.all(opened.splice(0).map((stream) => stream.close()));
});
afterAll(async () => {
  // Kills the server and removes its socket file.
  await box.cleanup();
});

type Event = { readonly kind: 'screen'; readonly data: string; readonly size: TerminalSize } | { readonly kind: 'output'; readonly data: Buffer } | { readonly kind: 'closed'; readonly reason: string };

/** A listener that keeps what it is told, and lets a test wait (event-driven, with a deadline) for what it expects. */
class Recorder implements TerminalListener {
  readonly events: Event[] = [];
  private readonly waiters = new Set<() => void>();

  screen(data: string, size: TerminalSize): void {
    this.push({ kind: 'screen', data, size });
  }
  output(data: Uint8Array): void {
    this.push({ kind: 'output', data: Buffer.from(data) });
  }
  closed(reason: string): void {
    this.push({ kind: 'closed', reason });
  }

  get screens(): Array<{ data: string; size: TerminalSize }> {
    return this.events.flatMap((e) => (e.kind === 'screen' ? [e] : []));
  }
  get closings(): string[] {
    return this.events.flatMap((e) => (e.kind === 'closed' ? [e.reason] : []));
  }
  /** The output after the last screen, as text. */
  get text(): string {
    const last = this.events.findLastIndex((e) => e.kind === 'screen');
    return Buffer.concat(this.events.slice(last + 1).flatMap((e) => (e.kind === 'output' ? [e.data] : []))).toString('utf8');
  }

  /** Resolves once `check` holds (looked at after every event), fails after `ms`. */
  until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(this.events.map((e) => (e.kind === 'output' ? { output: e.data.toString('utf8') } : e))).slice(-2_000)}`));
      }, ms);
      const waiter = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
    });
  }

  private push(event: Event): void {
    this.events.push(event);
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** The text of a screen's rows, escape sequences left out. */
function rows(screen: string): string[] {
  // eslint-disable-next-line no-control-regex -- the escape sequences are what this removes
  return screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\r\n');
}

/**
 * The numbers a counting agent printed, as a terminal shows them: the screen's rows down to the
 * cursor's (which the output goes on from, even in the middle of a number), then the output.
 */
function counted(screen: string, output: string): number[] {
  const cursor = /\u001b\[(\d+);(\d+)H$/.exec(screen);
  if (!cursor) throw new Error(`no cursor at the end of ${JSON.stringify(screen)}`);
  const shown = rows(screen);
  const y = Number(cursor[1]) - 1;
  // Empty rows at the bottom are not drawn.
  while (shown.length < y + 1) shown.push('');
  const text = shown.slice(0, y + 1).join('\n') + output.replace(/\r/g, '');
  // The last line may not be complete yet.
  return text.split('\n').slice(0, -1).map(Number);
}

/** Polls tmux every 25 ms until `check` holds: for what happens in tmux, which tells no one. */
async function tmuxUntil(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  await waitFor(what, check, { timeoutMs, everyMs: 25 });
}

/** A task whose worker runs `script` (sh -c), once the worker's window shows `ready` (when given). */
async function worker(branch: string, script: string, ready?: string): Promise<{ task: Task; target: string }> {
  box.setAgent(() => ['sh', '-c', script]);
  const task = await box.newTask({ branch });
  const target = `=demo/${task.meta.id}:=worker`;
  if (ready !== undefined) await tmuxUntil(`"${ready}" in the worker's window`, async () => (await box.tmux('capture-pane', '-p', '-t', target)).includes(ready));
  return { task, target };
}

async function follow(task: Task, recorder: Recorder, role: 'worker' | 'reviewer' = 'worker'): Promise<TerminalStream> {
  const stream = await runtime.terminal!(task.meta, role, recorder);
  if (!stream) throw new Error('no stream');
  opened.push(stream);
  return stream;
}

/** `list-clients` of the sandbox's server: `<pid> <control mode>` per client. */
async function clients(): Promise<string[]> {
  return (await box.tmux('list-clients', '-F', '#{client_pid} #{client_control_mode}')).split('\n').filter(Boolean);
}

describe('Runtime.terminal on tmux', () => {
  it('sends the screen as it is first, then what the agent writes after, in order, without the screen twice', async () => {
    const { task, target } = await worker('stream-order', 'printf "printed before\\n"; read go; printf "printed after %s\\n" "$go"; sleep 60', 'printed before');
    const recorder = new Recorder();
    const stream = await follow(task, recorder);
    await recorder.until('the first screen', () => recorder.screens.length === 1);
    expect(recorder.events[0]?.kind).toBe('screen');
    const [first] = recorder.screens;
    expect(rows(first!.data)[0]).toBe('printed before');
    const size = (await box.tmux('display-message', '-p', '-t', target, '#{pane_width} #{pane_height} #{cursor_x} #{cursor_y}')).split(' ').map(Number);
    expect(first!.size).toEqual({ cols: size[0], rows: size[1] });
    expect(first!.data.endsWith(`\u001b[${size[3]! + 1};${size[2]! + 1}H`)).toBe(true);

    await box.tmux('send-keys', '-t', target, '-l', 'now');
    await box.tmux('send-keys', '-t', target, 'Enter');
    await recorder.until('the output written after the screen', () => recorder.text.includes('printed after now\r\n'));
    expect(recorder.text).not.toContain('printed before');
    expect(recorder.screens).toHaveLength(1);
    await stream.close();
  });

  it('loses and repeats nothing between the screen and the output, while the agent and another window of its session print all the while', async () => {
    const { task, target } = await worker('stream-flood', 'i=0; while :; do i=$((i+1)); echo $i; done', '40');
    const session = target.split(':')[0]!;
    // Another pane's long output is what could make the agent's output overtake a screen's answer
    // (a race: these rounds catch it now and then; pane-follower.test.ts checks the remedy surely).
    await box.tmux('new-window', '-d', '-t', `${session}:`, '-n', 'other', 'sh', '-c', 'cat /dev/zero | tr "\\0" q');
    try {
      for (let round = 0; round < 8; round++) {
        const recorder = new Recorder();
        const stream = await follow(task, recorder);
        await recorder.until('200 lines after the screen', () => recorder.screens.length > 0 && recorder.text.split('\r\n').length > 200);
        await stream.close();
        const numbers = counted(recorder.screens.at(-1)!.data, recorder.text);
        const gaps = numbers.flatMap((n, i) => (i > 0 && n !== numbers[i - 1]! + 1 ? [[numbers[i - 1], n]] : []));
        expect({ round, gaps }).toEqual({ round, gaps: [] });
        expect(numbers.length).toBeGreaterThan(200);
      }
    } finally {
      await box.tmux('kill-session', '-t', session);
    }
  });

  it('types input into the pane as raw bytes: a command and Enter, UTF-8, and more than one send-keys call holds', async () => {
    const { task } = await worker('stream-input', 'PS1="shell> " exec sh', 'shell>');
    const recorder = new Recorder();
    const stream = await follow(task, recorder);
    await recorder.until('the first screen', () => recorder.screens.length === 1);
    expect(rows(recorder.screens[0]!.data)).toContain('shell>');

    await stream.input('echo hi\r');
    await recorder.until('hi from the shell', () => recorder.text.includes('\r\nhi\r\n'));
    // Only the shell's answer has é2 (what was typed reads é$((1+1))), and 1 500 bytes take three calls.
    await stream.input('echo é$((1+1))\r');
    await recorder.until('é2 from the shell', () => recorder.text.includes('\r\né2\r\n'));
    await Promise.all([stream.input(`echo ${'y'.repeat(1_500)} | wc -c`), stream.input('\r')]);
    await recorder.until('the length of the long line', () => /\r\n\s*1501\r\n/.test(recorder.text));
    await stream.close();
  });

  it('resizes the window on resize (clamped), which brings a new screen of the new size; close gives the size back to the clients', async () => {
    const { task, target } = await worker('stream-resize', 'printf "sized\\n"; sleep 60', 'sized');
    const recorder = new Recorder();
    const stream = await follow(task, recorder);
    await recorder.until('the first screen', () => recorder.screens.length === 1);
    const before = recorder.screens[0]!.size;
    const wanted = { cols: before.cols + 21, rows: before.rows + 7 };

    await stream.resize(wanted);
    await recorder.until('a screen of the new size', () => recorder.screens.at(-1)?.size.cols === wanted.cols);
    expect(recorder.screens.at(-1)!.size).toEqual(wanted);
    expect(rows(recorder.screens.at(-1)!.data)[0]).toBe('sized');
    expect(await box.tmux('display-message', '-p', '-t', target, '#{window_width}x#{window_height}')).toBe(`${wanted.cols}x${wanted.rows}`);

    await stream.resize({ cols: 3, rows: 1 });
    await recorder.until('a screen of the smallest size', () => recorder.screens.at(-1)?.size.cols === 20);
    expect(recorder.screens.at(-1)!.size).toEqual({ cols: 20, rows: 5 });
    await expect(stream.resize({ cols: Number.NaN, rows: 10 })).rejects.toMatchObject({ code: 'E_INVALID_INPUT' });

    expect(await box.tmux('show-options', '-w', '-v', '-t', target, 'window-size')).toBe('manual');
    await stream.close();
    expect(await box.tmux('show-options', '-w', '-v', '-t', target, 'window-size')).toBe('');
  });

  it("changes nothing by watching: the window keeps its size, the session its environment, and the watcher cannot type", async () => {
    await box.tmux('set-option', '-g', 'default-size', '123x37');
    await box.tmux('set-option', '-g', 'update-environment', 'ORANGE_WATCH_PROBE');
    try {
      const { task, target } = await worker('stream-watch', 'cat', undefined);
      await tmuxUntil('the worker window', async () => (await box.windows()).includes(`demo/${task.meta.id}:worker`));
      // Set once the session exists: a client attaching with it would copy it into the session.
      process.env.ORANGE_WATCH_PROBE = 'from-the-watcher';
      const recorder = new Recorder();
      const stream = await follow(task, recorder);
      await recorder.until('the first screen', () => recorder.screens.length === 1);
      expect(recorder.screens[0]!.size).toEqual({ cols: 123, rows: 37 });
      expect(await box.tmux('display-message', '-p', '-t', target, '#{window_width}x#{window_height}')).toBe('123x37');
      expect(await box.tmux('list-clients', '-F', '#{client_flags}')).toMatch(/read-only/);
      expect(await box.tmux('list-clients', '-F', '#{client_flags}')).toMatch(/ignore-size/);
      expect(await box.tmux('show-environment', '-t', target.split(':')[0]!, 'ORANGE_WATCH_PROBE').catch(() => 'not set')).not.toContain('from-the-watcher');
      await stream.close();
    } finally {
      delete process.env.ORANGE_WATCH_PROBE;
      await box.tmux('set-option', '-g', 'default-size', '80x24');
      await box.tmux('set-option', '-gu', 'update-environment');
    }
  });

  it('calls closed exactly once when the session is killed', async () => {
    const { task, target } = await worker('stream-killed', 'printf "alive\\n"; sleep 60', 'alive');
    const recorder = new Recorder();
    const stream = await follow(task, recorder);
    await recorder.until('the first screen', () => recorder.screens.length === 1);
    await box.tmux('kill-session', '-t', target.split(':')[0]!);
    await recorder.until('closed', () => recorder.closings.length > 0);
    // close() resolves once the control client is gone: everything it said has been read by then.
    await stream.close();
    expect(recorder.closings).toHaveLength(1);
    expect(recorder.events.at(-1)?.kind).toBe('closed');
    expect(await clients()).toEqual([]);
  });

  it('calls closed when the window closes while the session goes on', async () => {
    const { task, target } = await worker('stream-window', 'sleep 60', undefined);
    await tmuxUntil('the worker window', async () => (await box.windows()).includes(`demo/${task.meta.id}:worker`));
    await box.tmux('new-window', '-d', '-t', `${target.split(':')[0]!}:`, '-n', 'other', 'sleep 60');
    const recorder = new Recorder();
    const stream = await follow(task, recorder);
    await recorder.until('the first screen', () => recorder.screens.length === 1);
    await box.tmux('kill-window', '-t', target);
    await recorder.until('closed', () => recorder.closings.length > 0);
    expect(recorder.closings).toEqual(["the agent's window closed"]);
    await stream.close();
    await box.tmux('kill-session', '-t', target.split(':')[0]!);
  });

  it('close() leaves no tmux client behind and calls the listener no more', async () => {
    const { task, target } = await worker('stream-close', 'printf "x\\n"; sleep 60', 'x');
    const recorder = new Recorder();
    const stream = await follow(task, recorder);
    await recorder.until('the first screen', () => recorder.screens.length === 1);
    const listed = await clients();
    expect(listed).toHaveLength(1);
    const pid = Number(listed[0]!.split(' ')[0]);
    expect(listed[0]).toBe(`${pid} 1`);

    await stream.close();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    await tmuxUntil('no clients', async () => (await clients()).length === 0, 2_000);
    const seen = recorder.events.length;
    await box.tmux('kill-session', '-t', target.split(':')[0]!);
    await stream.input('ignored\r');
    await stream.close();
    expect(recorder.events).toHaveLength(seen);
  });

  it('is null for a role without a window, a task without a session, and a server that is not running', async () => {
    const { task } = await worker('stream-missing', 'sleep 60', undefined);
    await tmuxUntil('the worker window', async () => (await box.windows()).includes(`demo/${task.meta.id}:worker`));
    const recorder = new Recorder();
    expect(await runtime.terminal!(task.meta, 'reviewer', recorder)).toBeNull();
    expect(await runtime.terminal!({ ...task.meta, id: 'NoSuchTask0000000000x', tmux_session: null }, 'worker', recorder)).toBeNull();
    const elsewhere = new TmuxRuntime(new TmuxClient('tmux', `orange-none-${process.pid}-${Date.now()}`));
    expect(await elsewhere.terminal(task.meta, 'worker', recorder)).toBeNull();
    expect(recorder.events).toEqual([]);
  });
});
