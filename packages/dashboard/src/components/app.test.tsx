import { cancelQuestion, classicWorkflow, OrangeError, pipelineWorkflow, type AttachInfo, type PullRequestReading } from '@orange/core';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attachUnknown, fakeRow, FakeSource, monitorHere, RecordingActions } from '../../test/fake-dashboard.js';
import { clipboardSequence } from '../clipboard.js';
import { SettableValue } from '../live-value.js';
import { displayWidth } from '../shown-text.js';
import type { TaskRow } from '../task-row.js';
import { App, type AppProps } from './app.js';

const instances: Array<{ unmount: () => void }> = [];
afterEach(() => {
  for (const i of instances.splice(0)) i.unmount();
});

/** Renders the dashboard over `rows`; `bodies` are TASK.md bodies by task id, there from the first read. */
function open(rows: TaskRow[], overrides: Partial<AppProps> = {}, bodies: Readonly<Record<string, string>> = {}) {
  const source = new FakeSource(rows);
  const actions = new RecordingActions();
  for (const [id, body] of Object.entries(bodies)) actions.bodies.set(id, body);
  const quit = vi.fn();
  const attach = vi.fn();
  const opened: string[] = [];
  const openUrl = async (url: string) => {
    opened.push(url);
    return `opened ${url}`;
  };
  const instance = render(
    <App
      source={source}
      actions={actions}
      scope="app"
      project="app"
      showProject={false}
      monitor={monitorHere}
      attach={attachUnknown}
      colour={false}
      onAttach={attach}
      onQuit={quit}
      onCopy={() => undefined}
      onOpenUrl={openUrl}
      {...overrides}
    />,
  );
  instances.push(instance);
  const frame = () => instance.lastFrame() ?? '';
  /** The terminal changes size, as a SIGWINCH would tell ink. */
  const resize = (columns: number, rows: number) => {
    Object.defineProperty(instance.stdout, 'columns', { value: columns, configurable: true });
    Object.defineProperty(instance.stdout, 'rows', { value: rows, configurable: true });
    instance.stdout.emit('resize');
  };
  /** Waits (up to 2 s) for the screen to show `text`; a failure prints the screen. */
  const shows = async (text: string) =>
    vi.waitFor(
      () => {
        if (!frame().includes(text)) throw new Error(`screen does not show ${JSON.stringify(text)}:\n${frame()}`);
      },
      { timeout: 2000, interval: 10 },
    );
  const press = async (keys: string) => {
    instance.stdin.write(keys);
    // ink reads input on a later turn of the event loop, and React commits the render after it.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  };
  /** Waits (up to 2 s) until the screen no longer shows `text`. */
  const hides = async (text: string) =>
    vi.waitFor(
      () => {
        if (frame().includes(text)) throw new Error(`screen still shows ${JSON.stringify(text)}:\n${frame()}`);
      },
      { timeout: 2000, interval: 10 },
    );
  const footer = () => frame().split('\n').find((l) => l.includes('q quit')) ?? '';
  return { source, actions, quit, attach, opened, frame, shows, hides, press, resize, footer };
}

describe('the task table', () => {
  it('shows one row per task, active ones first, each with its status and liveness icon', async () => {
    const done = fakeRow({ status: 'done', branch: 'chore/deps' });
    const working = fakeRow({ status: 'working', branch: 'feature/login', worker_spawn: 's1' }, { liveness: 'alive', alive: ['worker'], expected: ['worker'], active: true });
    const crashed = fakeRow({ status: 'working', branch: 'fix/crash', attention: 'hook failed' }, { liveness: 'dead', expected: ['worker'], active: true });
    const reviewing = fakeRow({ status: 'reviewing', branch: 'docs/contributing', pr_url: 'https://github.com/o/r/pull/12' }, { pr: { url: 'https://github.com/o/r/pull/12', number: 12, state: 'open', checks: '✗' } });
    const ui = open([done, working, crashed, reviewing]);
    await ui.shows('chore/deps');
    const lines = ui.frame().split('\n');
    const at = (branch: string) => lines.findIndex((l) => l.includes(branch));
    expect(at('chore/deps')).toBeGreaterThan(Math.max(at('feature/login'), at('fix/crash'), at('docs/contributing')));
    expect(lines[at('feature/login')]).toMatch(/^●.*working/);
    expect(lines[at('fix/crash')]).toMatch(/^✗.*working !/);
    expect(lines[at('docs/contributing')]).toMatch(/^○.*reviewing\s+#12 open ✗/);
    expect(lines[at('chore/deps')]).toMatch(/^○.*done/);
  });

  it('on a narrow screen shows the selected task\'s summary under it and moves the selection with j and k', async () => {
    const a = fakeRow({ status: 'working', branch: 'a', summary: 'first summary' });
    const b = fakeRow({ status: 'working', branch: 'b', summary: 'second summary' });
    const ui = open([a, b]);
    ui.resize(80, 30);
    await ui.hides('SUMMARY');
    await ui.shows('second summary');
    expect(ui.frame()).not.toContain('first summary');
    await ui.press('j');
    await ui.shows('first summary');
    expect(ui.frame()).not.toContain('second summary');
  });

  it('draws 10,000 tasks by rendering only the rows that fit, and scrolls to the selection', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => fakeRow({ status: 'working', branch: `task-${String(i).padStart(5, '0')}` }));
    const ui = open(rows);
    await ui.shows('task-09999');
    expect(ui.frame().split('\n').length).toBeLessThan(24);
    await ui.press('j'.repeat(30));
    await ui.shows('task-09969');
    expect(ui.frame()).not.toContain('task-09999');
  });

  it('filters by search on branch or summary', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'feature/login' }), fakeRow({ status: 'working', branch: 'fix/other', summary: 'nothing' })]);
    await ui.shows('fix/other');
    await ui.press('/');
    await ui.press('login');
    await ui.press('\r');
    await ui.shows('/login');
    expect(ui.frame()).toContain('feature/login');
    expect(ui.frame()).not.toContain('fix/other');
  });

  it('cycles the filter through all, active and done', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'live-one' }), fakeRow({ status: 'done', branch: 'old-one' })]);
    await ui.shows('old-one');
    await ui.press('f');
    await ui.shows('showing active');
    expect(ui.frame()).not.toContain('old-one');
    await ui.press('f');
    await ui.shows('showing done');
    expect(ui.frame()).not.toContain('live-one');
  });

  it('follows the source: a status written elsewhere replaces the row', async () => {
    const row = fakeRow({ status: 'working', branch: 'moving' });
    const ui = open([row]);
    await ui.shows('working');
    ui.source.set([{ ...row, meta: { ...row.meta, status: 'agent-review' } }]);
    await ui.shows('agent-review');
  });
});

describe('the selection', () => {
  /** The summary line under the selected row says which task holds the selection. */
  const selectedSummary = (frame: string) => /^\s+(summary of \w+)$/m.exec(frame)?.[1] ?? null;

  it('is the first task on open and stays on it when another task changes and sorts above it', async () => {
    const a = fakeRow({ status: 'working', branch: 'task-a', summary: 'summary of a', updated_at: '2026-01-01T10:00:02.000Z' });
    const b = fakeRow({ status: 'working', branch: 'task-b', summary: 'summary of b', updated_at: '2026-01-01T10:00:01.000Z' });
    const ui = open([a, b]);
    ui.resize(80, 30);
    await ui.hides('SUMMARY');
    await ui.shows('summary of a');
    // Nobody touched a key: b changes (another shell) and now sorts first.
    ui.source.set([a, { ...b, meta: { ...b.meta, summary: 'summary of b', updated_at: '2026-01-01T10:00:09.000Z' } }]);
    await vi.waitFor(() => expect(ui.frame().indexOf('task-b')).toBeLessThan(ui.frame().indexOf('task-a')));
    expect(selectedSummary(ui.frame()), ui.frame()).toBe('summary of a');
    // Enter acts on the task the person sees selected.
    await ui.press('\r');
    const acted = [...ui.actions.calls, ...ui.attach.mock.calls.map((call) => (call[0] as TaskRow).meta.id)].join(' ');
    expect(acted).toContain(a.meta.id);
    expect(acted).not.toContain(b.meta.id);
  });

  it('moves to the neighbour of a task that leaves the view, not to the task that changed last', async () => {
    const rows = ['a', 'b', 'c'].map((n, i) => fakeRow({ status: 'working', branch: `task-${n}`, summary: `summary of ${n}`, updated_at: `2026-01-01T10:00:0${5 - i}.000Z` }));
    const [a, b, c] = rows as [TaskRow, TaskRow, TaskRow];
    const ui = open(rows);
    ui.resize(80, 30);
    await ui.hides('SUMMARY');
    await ui.shows('summary of a');
    await ui.press('j');
    await ui.shows('summary of b');
    // b is deleted while c changes and sorts first: the selection goes to the row now in b's place
    // (a), not to c, the task that changed last.
    ui.source.set([a, { ...c, meta: { ...c.meta, updated_at: '2026-01-01T10:00:09.000Z' } }]);
    await ui.hides('task-b');
    expect(selectedSummary(ui.frame()), ui.frame()).toBe('summary of a');
  });

  it('selects the task just created with c', async () => {
    const old = fakeRow({ status: 'working', branch: 'task-old', summary: 'summary of old' });
    const ui = open([old]);
    await ui.shows('summary of old');
    ui.actions.created = { project: 'app', id: 'NEWTASK00000000000001' };
    await ui.press('c');
    await ui.shows('New task');
    await ui.press('feature/new');
    await ui.press('\r');
    await ui.shows('create done');
    ui.source.set([old, fakeRow({ id: 'NEWTASK00000000000001', status: 'planning', branch: 'feature/new', summary: 'summary of new', updated_at: '2026-01-01T09:00:00.000Z' })]);
    await ui.shows('summary of new');
    expect(selectedSummary(ui.frame()), ui.frame()).toBe('summary of new');
  });
});

describe('the status bar', () => {
  it('lets an outcome go after 10 s and a refusal after 30 s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    try {
      const ui = open([fakeRow({ status: 'working', branch: 'task-a' }, { liveness: 'dead', expected: ['worker'], active: true })]);
      await vi.advanceTimersByTimeAsync(50);
      ui.actions.refuse.set('respawn', new OrangeError('E_RUNTIME', 'tmux new-window failed: no server'));
      ui.press('\r');
      await vi.advanceTimersByTimeAsync(50);
      expect(ui.frame()).toContain('tmux new-window failed');
      await vi.advanceTimersByTimeAsync(29_000);
      expect(ui.frame()).toContain('tmux new-window failed');
      await vi.advanceTimersByTimeAsync(1_500);
      expect(ui.frame()).not.toContain('tmux new-window failed');
      ui.press('y');
      await vi.advanceTimersByTimeAsync(50);
      expect(ui.frame()).toContain('copied');
      await vi.advanceTimersByTimeAsync(10_500);
      expect(ui.frame()).not.toContain('copied');
    } finally {
      vi.useRealTimers();
    }
  });

  it('wraps a long refusal onto a second line instead of cutting off its advice', async () => {
    const advice = 'install the GitHub CLI (gh) and log in with gh auth login, or merge the branch locally with m';
    const ui = open([fakeRow({ status: 'reviewing', branch: 'task-a' })]);
    ui.resize(80, 30);
    ui.actions.refuse.set('pullRequest', new OrangeError('E_SCM', `no pull request can be opened for this task: ${advice}`));
    await ui.press('p');
    await ui.shows('gh auth login');
    expect(ui.frame().replace(/\s+/g, ' ')).toContain('merge the branch locally with m');
    expect(ui.frame().split('\n').length).toBeLessThanOrEqual(29);
  });
});

describe('the footer', () => {
  it.each([
    ['pending', ['⏎ spawn', 'x cancel'], ['d delete', 'm merge', 'r changes']],
    ['reviewing', ['r changes', 'm merge', 'x cancel', 'p PR'], ['d delete', '⏎ spawn']],
    ['working', ['x cancel', 'p PR', 'tab pane', 'm force-merge'], ['d delete', 'm merge', 'r changes']],
    ['done', ['d delete'], ['x cancel', 'm merge', 'p PR']],
  ])('for a task in %s lists the keys that apply to it', async (status, shown, hidden) => {
    const ui = open([fakeRow({ status }, { active: status === 'working' || status === 'reviewing' })]);
    await ui.shows('q quit');
    const footer = ui.frame().split('\n').find((l) => l.includes('q quit')) ?? '';
    for (const key of shown) expect(footer).toContain(key);
    for (const key of hidden) expect(footer).not.toContain(key);
  });
});

describe('actions', () => {
  it.each([
    ['a working task', 'cancel', () => fakeRow({ status: 'working', branch: 'to-cancel' }), 'Cancel task'],
    ['a stopped pipeline task', 'abandon', () => fakeRow({ status: 'stopped', branch: 'to-cancel' }, {}, pipelineWorkflow), 'Abandon stopped task'],
  ] as const)('x on %s offers to %s it, asks in the words task cancel uses, and acts only after y', async (_what, kind, makeRow, asks) => {
    const row = makeRow();
    const ui = open([row]);
    ui.actions.cancelCheck = () => ({ to: kind === 'abandon' ? 'failed' : 'cancelled', kind, question: cancelQuestion(row.meta, kind) });
    await ui.shows(`x ${kind}`);
    await ui.press('x');
    // The question is cut at the terminal's width; its start says what will happen.
    await ui.shows(`${asks} ${row.meta.id} (`);
    await ui.shows('[y/N]');
    await ui.press('n');
    await ui.shows('not confirmed');
    expect(ui.actions.calls).toEqual([`checkCancel ${row.meta.id}`]);
    await ui.press('x');
    await ui.shows('[y/N]');
    await ui.press('y');
    await ui.shows('cancel done');
    expect(ui.actions.calls).toEqual([`checkCancel ${row.meta.id}`, `checkCancel ${row.meta.id}`, `cancel ${row.meta.id}`]);
  });

  it('shows a refusal as its one-line reason in the status bar, without asking to confirm', async () => {
    const row = fakeRow({ status: 'working', branch: 'unmergeable' });
    const ui = open([row]);
    ui.actions.refuse.set('checkMerge', new OrangeError('E_ILLEGAL_TRANSITION', `task ${row.meta.id} cannot be merged from working`));
    await ui.shows('unmergeable');
    await ui.press('m');
    await ui.shows('cannot be merged from working');
    expect(ui.frame()).not.toContain('[y/N]');
    expect(ui.actions.calls).not.toContain(`merge ${row.meta.id}`);
  });

  it('merges a reviewed task after confirmation', async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'reviewed' });
    const ui = open([row]);
    await ui.shows('reviewed');
    await ui.press('m');
    await ui.shows(`Merge task ${row.meta.id} (reviewed) into the default branch? [y/N]`);
    await ui.press('y');
    await ui.shows('merge done');
    expect(ui.actions.calls).toEqual([`checkMerge ${row.meta.id}`, `merge ${row.meta.id}`]);
  });

  it('force-merges a task still at work only after a confirmation that says so', async () => {
    const row = fakeRow({ status: 'working', branch: 'in-a-hurry' });
    const ui = open([row]);
    ui.actions.forced = true;
    await ui.shows('in-a-hurry');
    await ui.press('m');
    await ui.shows(`Force-merge task ${row.meta.id} (in-a-hurry) from working, unreviewed?`);
    await ui.shows('[y/N]');
    await ui.press('n');
    await ui.shows('not confirmed; nothing was changed');
    expect(ui.actions.calls).toEqual([`checkMerge ${row.meta.id}`]);
    await ui.press('m');
    await ui.shows('[y/N]');
    await ui.press('y');
    await ui.shows('merge done');
    expect(ui.actions.calls).toContain(`merge ${row.meta.id} forced`);
  });

  it('p creates a pull request, and on a task that has one opens it in the browser', async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'to-publish' });
    const ui = open([row]);
    await ui.shows('to-publish');
    await ui.press('p');
    await ui.shows('pull request created: https://github.example/o/r/pull/7 (p again opens it)');
    expect(ui.opened).toEqual([]);
    ui.actions.prUrl = 'https://github.example/o/r/pull/7';
    await ui.press('p');
    await ui.shows('opened https://github.example/o/r/pull/7');
    expect(ui.opened).toEqual(['https://github.example/o/r/pull/7']);
  });

  it('deletes a finished task after confirmation', async () => {
    const row = fakeRow({ status: 'done', branch: 'finished' });
    const ui = open([row]);
    await ui.shows('finished');
    await ui.press('d');
    await ui.shows('Delete task');
    await ui.press('y');
    await ui.shows('delete done');
  });

  it('creates a task from the form: typed branch and summary, cycled harness and status', async () => {
    const ui = open([]);
    await ui.shows('no tasks yet');
    await ui.press('c');
    await ui.shows('New task');
    await ui.press('feature/new');
    await ui.press('\t');
    await ui.press('Add the thing');
    await ui.press('\t');
    await ui.press(' ');
    await ui.shows('claude');
    await ui.press('\t');
    await ui.press(' ');
    await ui.shows('for a human review');
    await ui.press('\r');
    await ui.shows('create done');
    expect(JSON.parse(ui.actions.calls[0]?.replace(/^create /, '') ?? '{}')).toEqual({ project: 'app', branch: 'feature/new', summary: 'Add the thing', harness: 'claude', status: 'reviewing' });
  });

  it('takes a Tab typed together with the text after it as a move to the next field', async () => {
    const ui = open([]);
    await ui.press('c');
    await ui.shows('New task');
    await ui.press('feature/fast');
    await ui.press('\tTyped right after the Tab');
    await ui.shows('Typed right after the Tab▏');
    await ui.press('\r');
    await ui.shows('create done');
    expect(JSON.parse(ui.actions.calls[0]?.replace(/^create /, '') ?? '{}')).toMatchObject({ branch: 'feature/fast', summary: 'Typed right after the Tab' });
  });

  it('keeps the form open with everything typed when the create is refused', async () => {
    const ui = open([]);
    ui.actions.refuse.set('create', new OrangeError('E_TASK_EXISTS', 'branch feature/dup exists already'));
    await ui.press('c');
    await ui.shows('New task');
    await ui.press('feature/dup');
    await ui.press('\t');
    await ui.press('A summary worth keeping');
    await ui.press('\r');
    await ui.shows('branch feature/dup exists already');
    await ui.shows('New task');
    await ui.shows('feature/dup');
    await ui.shows('A summary worth keeping');
  });

  it('leaves the create form with Esc without creating anything', async () => {
    const ui = open([]);
    await ui.press('c');
    await ui.shows('New task');
    await ui.press('\u001b');
    await ui.shows('no tasks yet');
    expect(ui.actions.calls).toEqual([]);
  });

  it('requests changes on a task in reviewing with the typed instructions', async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'in-review' });
    const ui = open([row]);
    await ui.shows('in-review');
    await ui.press('r');
    await ui.shows('Changes to ask for');
    await ui.press('rename the flag');
    await ui.press('\r');
    await ui.shows('requestChanges done');
    expect(ui.actions.calls).toEqual([`requestChanges ${row.meta.id} rename the flag`]);
  });

  it('takes a line pasted into the prompt with its Enter in one read as typed then submitted', async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'in-review' });
    const ui = open([row]);
    await ui.shows('in-review');
    await ui.press('r');
    await ui.shows('Changes to ask for');
    await ui.press('use the shared helper\r');
    await ui.shows('requestChanges done');
    expect(ui.actions.calls).toEqual([`requestChanges ${row.meta.id} use the shared helper`]);
  });

  it('takes a search pasted with its Enter as kept', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'alpha' }), fakeRow({ status: 'working', branch: 'beta' })]);
    await ui.shows('alpha');
    await ui.press('/');
    await ui.press('beta\r');
    await ui.shows('showing all /beta');
    await ui.hides('(Enter keep, Esc clear)');
    await ui.hides('alpha');
  });

  it('loses no move of a burst of keys read one by one before the screen catches up', async () => {
    const rows = ['a', 'b', 'c', 'd'].map((n, i) => fakeRow({ status: 'working', branch: `task-${n}`, summary: `summary of ${n}`, updated_at: `2026-01-01T10:00:0${5 - i}.000Z` }));
    const ui = open(rows);
    await ui.shows('summary of a');
    // k k j j j from the top, each its own read, with no render in between: up twice (stays at the
    // top), then down three times.
    for (const key of ['k', 'k', 'j', 'j', 'j']) ui.press(key);
    await ui.shows('summary of d');
    // And as one read.
    await ui.press('kkkkj');
    await ui.shows('summary of b');
  });

  it('spawns a pending task on Enter and attaches to a live one', async () => {
    const pending = fakeRow({ status: 'pending', branch: 'waiting' });
    const live = fakeRow({ status: 'working', branch: 'running' }, { liveness: 'alive', alive: ['worker'], active: true });
    const ui = open([pending, live]);
    await ui.shows('running');
    await ui.press('\r');
    expect(ui.attach).toHaveBeenCalledWith(expect.objectContaining({ meta: live.meta }), 'worker', expect.objectContaining({ selectedId: live.meta.id }));
    await ui.press('j');
    await ui.press('\r');
    await ui.shows('spawn done');
    expect(ui.actions.calls).toEqual([`spawn ${pending.meta.id}`]);
  });

  it('quits on q', async () => {
    const ui = open([fakeRow({ status: 'working' })]);
    await ui.press('q');
    expect(ui.quit).toHaveBeenCalled();
  });
});

describe('the detail pane', () => {
  it("shows the live agent's window, and the history timeline with causes", async () => {
    const live = fakeRow({ status: 'working', branch: 'busy' }, { liveness: 'alive', alive: ['worker'], active: true });
    const ui = open([live]);
    await ui.shows('worker pane line');
    await ui.shows('pending → planning (spawn)');
  });

  it('renders a task-controlled escape sequence inert', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'evil\u001b]0;title\u0007', summary: 'x\u001b[2Jy' })]);
    await ui.shows('evil');
    expect(ui.frame()).not.toMatch(/\u001b\]|\u001b\[2J/);
    expect(ui.frame()).toContain('␛]0;title␇');
  });
});

describe('a narrow terminal and NO_COLOR', () => {
  it('keeps help and quit in an 80-column footer with a long attach hint and a diff key, dropping the least needed keys', async () => {
    const attach = new SettableValue<AttachInfo | null>({ mode: 'nested', back: 'C-b C-b d', prefix: 'C-b' });
    const ui = open([fakeRow({ status: 'reviewing', branch: 'crowded', workspace: '/w/app--1' }, { liveness: 'alive', alive: ['worker'], active: true })], { attach });
    ui.resize(80, 24);
    await ui.shows('crowded');
    await vi.waitFor(() => expect(displayWidth(ui.footer()), ui.frame()).toBeLessThanOrEqual(80));
    expect(ui.footer()).toContain('? help  q quit');
    expect(ui.footer()).toContain('⏎ attach (C-b C-b d back)');
  });

  it('keeps help and quit in an 80-column footer, dropping the least needed keys', async () => {
    const { Footer } = await import('./footer.js');
    const { footerKeys } = await import('../key-map.js');
    const row = fakeRow({ status: 'reviewing', pr_url: 'https://github.com/o/r/pull/3' }, { active: true });
    const instance = render(<Footer keys={footerKeys(row)} width={80} />);
    instances.push(instance);
    const line = instance.lastFrame() ?? '';
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).toContain('? help  q quit');
    expect(line).toContain('m merge');
    expect(line).not.toContain('f filter');
  });

  it('draws no colour sequences when colours are off', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'plain' }, { liveness: 'alive', alive: ['worker'], active: true })], { colour: false });
    await ui.shows('pane line');
    // SGR colour codes: 30–37, 90–97 (foreground), 38;… (extended); the preview's red must be gone too.
    expect(ui.frame()).not.toMatch(/\u001b\[(3[0-8]|9[0-7])(;[0-9]+)*m/);
    expect(ui.frame()).toContain('red');
  });
});

/** The footer of a row in `status` of `workflow` (the real workflow's targets). */
const STATUS_FOOTERS: Array<[string, Partial<Parameters<typeof fakeRow>[1]>, string[], string[]]> = [
  ['pending', {}, ['⏎ spawn', 'x cancel', 'p PR'], ['⏎ respawn', 'm merge', 'd delete', 'r changes', 'tab pane']],
  ['planning', { liveness: 'alive', alive: ['worker'] }, ['⏎ attach', 'x cancel', 'm force-merge', 'tab pane'], ['⏎ spawn', 'd delete', 'r changes']],
  ['clarification', {}, ['⏎ respawn', 'x cancel'], ['⏎ spawn', 'd delete', 'r changes', 'a answer']],
  ['working', { liveness: 'dead' }, ['⏎ respawn', 'x cancel', 'm force-merge', 'p PR'], ['d delete', 'm merge', 'r changes']],
  ['agent-review', { liveness: 'alive', alive: ['reviewer'] }, ['⏎ attach', 'x cancel', 'm force-merge'], ['d delete', 'r changes']],
  // No worker by design (created for a review, or its worker left): Enter reads the task, never starts an agent.
  ['reviewing', {}, ['⏎ review', 'r changes', 'm merge', 'x cancel', 'p PR'], ['d delete', 'm force-merge', '⏎ respawn']],
  ['stuck', {}, ['⏎ respawn', 'x cancel'], ['d delete', 'r changes', '⏎ spawn']],
  ['done', {}, ['d delete', 'v TASK.md'], ['x cancel', 'm merge', 'p PR', '⏎', 'tab pane']],
  ['cancelled', {}, ['d delete'], ['x cancel', 'm merge', 'p PR', '⏎']],
];

describe('every built-in status', () => {
  it.each(STATUS_FOOTERS)('a task in %s: its row, and a footer with the keys that apply', async (status, extra, shown, hidden) => {
    const ui = open([fakeRow({ status, branch: `task-in-${status}` }, extra)]);
    await ui.shows(`task-in-${status}`);
    const row = ui.frame().split('\n').find((l) => l.includes(`task-in-${status}`)) ?? '';
    expect(row).toMatch(new RegExp(`^[●✗○◌].*task-in-${status}\\s+${status}\\s`));
    for (const key of shown) expect(ui.footer()).toContain(key);
    for (const key of hidden) expect(ui.footer()).not.toContain(key);
  });

  it.each([
    // x: a running task is stopped (checkpoint kept), a stopped one abandoned, as `task cancel` does.
    ['created', ['⏎ spawn', 'x stop'], ['⏎ respawn', 'd delete', 'x cancel']],
    ['classifying', ['⏎ respawn', 'v TASK.md', 'x stop'], ['⏎ spawn', 'd delete', 'x cancel', 'a answer']],
    // No agent by design: Enter reads the task (the person's move), never starts one.
    ['awaiting_clarification', ['⏎ review', 'a answer', 'v TASK.md', 'x stop'], ['⏎ respawn', '⏎ spawn', 'd delete']],
    ['executing', ['⏎ respawn', 'x stop'], ['⏎ spawn', 'd delete']],
    ['verifying', ['⏎ respawn', 'x stop'], ['d delete']],
    ['stopped', ['⏎ review', 'x abandon'], ['⏎ respawn', '⏎ spawn', 'd delete', 'm merge', 'x stop']],
    ['completed', ['⏎ review', 'm merge', 'x abandon'], ['⏎ respawn', '⏎ spawn', 'd delete']],
    ['failed', ['d delete'], ['⏎', 'x ']],
  ])('a pipeline task in %s: its row and footer', async (status, shown, hidden) => {
    const ui = open([fakeRow({ status, branch: `pipe-${status}` }, {}, pipelineWorkflow)]);
    await ui.shows(`pipe-${status}`);
    // The STATUS column is 15 wide: a longer status is cut (awaiting_clar…).
    expect(ui.frame().split('\n').find((l) => l.includes(`pipe-${status}`))).toMatch(new RegExp(`pipe-${status}\\s+${status.slice(0, 13)}`));
    for (const key of shown) expect(ui.footer()).toContain(key);
    for (const key of hidden) expect(ui.footer()).not.toContain(key);
  });
});

describe('Enter', () => {
  it('respawns the dead agent of an active task', async () => {
    const crashed = fakeRow({ status: 'working', branch: 'crashed', worker_spawn: null }, { liveness: 'dead' });
    const ui = open([crashed]);
    await ui.shows('⏎ respawn');
    await ui.press('\r');
    await ui.shows('respawn done');
    expect(ui.actions.calls).toEqual([`respawn ${crashed.meta.id}`]);
    expect(ui.attach).not.toHaveBeenCalled();
  });

  it("offers no respawn where the workflow's status has no agent (classic reviewing): Enter reads the task instead", async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'human-review' }, {}, classicWorkflow);
    expect(row.expected).toEqual([]);
    const ui = open([row]);
    await ui.shows('human-review');
    expect(ui.footer()).toContain('⏎ review');
    await ui.press('\r');
    await ui.shows('TASK.md of');
    expect(ui.actions.calls).toEqual([]);
    expect(ui.attach).not.toHaveBeenCalled();
    expect(ui.frame()).not.toContain('respawn');
  });

  it('a task created for a review (default workflow, no worker ever) shows no crash, is not counted as needing you for it, and Enter reads it', async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'their-branch' }, { liveness: 'none', active: true });
    expect(row.expected).toEqual([]);
    const ui = open([row]);
    await ui.shows('their-branch');
    expect(ui.frame().split('\n').find((l) => l.includes('their-branch'))).toMatch(/^○/);
    expect(ui.footer()).toContain('⏎ review');
    await ui.press('\r');
    await ui.shows('TASK.md of');
    expect(ui.actions.calls).toEqual([]);
  });

  it('a task whose agent is being started shows ◌, not ✗, and Enter does not restart it', async () => {
    const row = fakeRow({ status: 'planning', branch: 'just-started' }, { liveness: 'starting', active: true });
    const ui = open([row]);
    await ui.shows('just-started');
    expect(ui.frame().split('\n').find((l) => l.includes('just-started'))).toMatch(/^◌/);
    expect(ui.footer()).not.toContain('⏎');
    expect(ui.frame()).toContain('0 need you');
    await ui.press('\r');
    await ui.press('j');
    expect(ui.actions.calls).toEqual([]);
  });

  it('shows the keys back from an agent once the runtime said how it attaches', async () => {
    const attach = new SettableValue<AttachInfo | null>(null);
    const ui = open([fakeRow({ status: 'working', branch: 'live' }, { liveness: 'alive', alive: ['worker'] })], { attach });
    await ui.shows('⏎ attach');
    expect(ui.footer()).not.toContain('back)');
    attach.set({ mode: 'switch', back: 'C-b L', prefix: 'C-b' });
    await ui.shows('⏎ attach (C-b L back)');
    ui.resize(100, 60);
    await ui.press('?');
    await ui.shows('switches this tmux client to its session');
    const help = ui.frame().replace(/\s+/g, ' ');
    expect(help).toContain('C-b L (switch-client -l) comes back here');
    expect(help).toContain('C-b d would detach the whole client');
  });
});

describe('keys', () => {
  it('R runs the PR sync for the task and shows the state it read, asking nothing again; a state applied is said instead', async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'with-pr', pr_url: 'https://github.com/o/r/pull/5' });
    const shownReads: PullRequestReading[] = [];
    const changed: string[] = [];
    const ui = open([row], { onPullRequestRead: (read) => shownReads.push(read), onChanged: (ref) => changed.push(ref.id) });
    const read: PullRequestReading = { task: row.meta.id, url: 'https://github.com/o/r/pull/5', state: 'open', checks: [{ name: 'CI', state: 'success', url: null, runId: 'r1' }] };
    ui.actions.read = read;
    await ui.shows('with-pr');
    await ui.press('R');
    await ui.shows(`pull request of ${row.meta.id}: open ✓`);
    // One sync; its own read goes to the row, and the task is read again once.
    expect(ui.actions.calls).toEqual([`syncPullRequest ${row.meta.id}`]);
    expect(shownReads).toEqual([read]);
    await vi.waitFor(() => expect(changed).toEqual([row.meta.id]));
    ui.actions.synced = `pull request of ${row.meta.id} merged: task ${row.meta.id} → done`;
    await ui.press('R');
    await ui.shows(`merged: task ${row.meta.id} → done`);
    ui.actions.synced = null;
    ui.actions.read = null;
    await ui.press('R');
    await ui.shows(`pull request of ${row.meta.id}: state unknown`);
  });

  it('p that opens a pull request shows it open on its row at once, asking the SCM nothing', async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'to-publish' });
    const shownReads: PullRequestReading[] = [];
    const ui = open([row], { onPullRequestRead: (read) => shownReads.push(read) });
    await ui.shows('to-publish');
    await ui.press('p');
    await ui.shows('pull request created: https://github.example/o/r/pull/7');
    expect(ui.actions.calls).toEqual([`pullRequest ${row.meta.id}`]);
    expect(shownReads).toEqual([{ task: row.meta.id, url: 'https://github.example/o/r/pull/7', state: 'open', checks: null }]);
  });

  it('R on a task without a pull request says so and asks nobody', async () => {
    const row = fakeRow({ status: 'reviewing', branch: 'no-pr' });
    const ui = open([row]);
    await ui.shows('no-pr');
    await ui.press('R');
    await ui.shows(`task ${row.meta.id} has no pull request (p opens one)`);
    expect(ui.actions.calls).toEqual([]);
  });

  it('y writes the task id to the clipboard as an OSC 52 sequence', async () => {
    const row = fakeRow({ status: 'working', branch: 'copy-me' });
    const written: string[] = [];
    const ui = open([row], { onCopy: (text) => written.push(clipboardSequence(text)) });
    await ui.shows('copy-me');
    await ui.press('y');
    await ui.shows(`copied ${row.meta.id}`);
    expect(written).toEqual([`\u001b]52;c;${Buffer.from(row.meta.id).toString('base64')}\u0007`]);
  });

  it('v shows the whole TASK.md, scrolls it, and Esc goes back', async () => {
    const row = fakeRow({ status: 'working', branch: 'long-file' });
    const ui = open([row]);
    ui.actions.taskFile = async () => Array.from({ length: 60 }, (_, i) => `line ${i + 1} of the body`).join('\n');
    await ui.shows('long-file');
    await ui.press('v');
    await ui.shows(`TASK.md of ${row.meta.id} (long-file) — lines 1-`);
    expect(ui.frame()).toContain('line 1 of the body');
    expect(ui.frame()).not.toContain('line 60 of the body');
    await ui.press('j');
    await ui.shows('— lines 2-');
    expect(ui.frame()).not.toContain('line 1 of the body');
    await ui.press('G');
    await ui.shows('line 60 of the body');
    await ui.press('\u001b');
    await ui.shows('j/k move');
    expect(ui.frame()).not.toContain('of the body');
  });

  it('? shows every key and who runs the monitor; any key goes back', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'helped' })]);
    ui.resize(100, 60);
    await ui.shows('helped');
    await ui.press('?');
    await ui.shows('Orange dashboard — keys');
    for (const key of ['Enter', 'request changes', 'sync the pull request', 'copy the task id', 'is run by: monitor: here']) expect(ui.frame().replace(/\s+/g, ' ')).toContain(key);
    await ui.press('x');
    await ui.shows('helped');
    expect(ui.actions.calls).toEqual([]);
  });

  it('? at 80x24 shows every description whole, wrapped under itself, and scrolls to the rest', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'helped' })]);
    ui.resize(80, 24);
    await ui.shows('helped');
    await ui.press('?');
    await ui.shows('Orange dashboard — keys');
    const first = ui.frame();
    expect(Math.max(...first.split('\n').map((l) => displayWidth(l)))).toBeLessThanOrEqual(80);
    expect(first.split('\n').length).toBeLessThanOrEqual(24);
    // A long description goes on under itself instead of being cut.
    expect(first.replace(/\s+/g, ' ')).toContain('merge a reviewed task into the default branch; on a task still at work, a force-merge (after confirmation)');
    for (let i = 0; i < 20; i++) await ui.press('j');
    await vi.waitFor(() => expect(ui.frame().replace(/\s+/g, ' ')).toContain('is run by: monitor: here'));
    await ui.press('x');
    await ui.shows('helped');
    expect(ui.actions.calls).toEqual([]);
  });

  it('D shows the whole diff of the task, coloured and sanitised, n jumps to the next file, Esc goes back', async () => {
    const row = fakeRow({ status: 'working', branch: 'with-diff', workspace: '/w/app--1' });
    const ui = open([row], { colour: true });
    ui.resize(100, 20);
    ui.actions.diffText = [
      'diff --git a/src/one.ts b/src/one.ts',
      '--- a/src/one.ts',
      '+++ b/src/one.ts',
      '@@ -1,2 +1,2 @@',
      '-const a = 1;',
      '+const a = 2; // \u001b]0;pwned\u0007',
      ...Array.from({ length: 30 }, (_, i) => ` context line ${i}`),
      'diff --git a/src/two.ts b/src/two.ts',
      '--- a/src/two.ts',
      '+++ b/src/two.ts',
      '@@ -0,0 +1 @@',
      '+export const two = true;',
    ].join('\n');
    await ui.shows('with-diff');
    expect(ui.footer()).toContain('D diff');
    await ui.press('D');
    await ui.shows('file 1 of 2');
    expect(ui.frame()).toContain('+const a = 2; // ␛]0;pwned␇');
    expect(ui.frame()).toContain('-const a = 1;');
    expect(ui.frame()).not.toContain('\u001b]0;');
    expect(ui.frame()).not.toContain('export const two');
    await ui.press('n');
    await ui.shows('file 2 of 2');
    await ui.shows('export const two = true;');
    await ui.press('\u001b');
    await ui.hides('file 2 of 2');
    await ui.shows('with-diff');
  });

  it('D on a task without changes or without a worktree says so', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'clean', workspace: '/w/app--1' })]);
    await ui.shows('clean');
    ui.actions.diffText = '';
    await ui.press('D');
    await ui.shows('has no changes against its base yet');
    ui.actions.diffText = null;
    await ui.press('D');
    await ui.shows('has no worktree');
  });

  it("Tab switches the preview between the worker's window and the reviewer's", async () => {
    const row = fakeRow({ status: 'agent-review', branch: 'two-agents' }, { liveness: 'alive', alive: ['worker', 'reviewer'] });
    const ui = open([row]);
    await ui.shows('worker pane line');
    expect(ui.frame()).toContain(`[worker] ${row.meta.id}`);
    await ui.press('\t');
    await ui.shows('reviewer pane line');
    expect(ui.frame()).toContain(`[reviewer] ${row.meta.id}`);
    expect(ui.frame()).not.toContain('worker pane line');
    await ui.press('\t');
    await ui.shows('worker pane line');
  });
});

describe('the diff stat, a resize, width', () => {
  it('on a wide screen gives every row its summary in a SUMMARY column, the TASK column as wide as the longest branch', async () => {
    const rows = [fakeRow({ status: 'working', branch: 'feature/short', summary: 'the first summary' }), fakeRow({ status: 'reviewing', branch: 'feature/a-rather-longer-branch', summary: 'the second summary' })];
    const ui = open(rows);
    ui.resize(200, 40);
    await ui.shows('SUMMARY');
    const lines = ui.frame().split('\n');
    const heading = lines.find((l) => l.includes('SUMMARY')) ?? '';
    const short = lines.find((l) => l.includes('feature/short')) ?? '';
    const long = lines.find((l) => l.includes('feature/a-rather-longer-branch')) ?? '';
    expect(short).toContain('the first summary');
    expect(long).toContain('the second summary');
    // TASK is sized to the longest branch (+2), not stretched over the screen.
    expect(heading.indexOf('SUMMARY')).toBe(5 + 'feature/a-rather-longer-branch'.length + 2);
    expect(short.indexOf('the first summary')).toBe(heading.indexOf('SUMMARY'));
    // No summary line under the selected row: it is in the row.
    const selectedAt = lines.findIndex((l) => l.includes('feature/a-rather-longer-branch'));
    expect(lines[selectedAt + 1] ?? '').not.toContain('the second summary');
    expect(Math.max(...lines.map((l) => displayWidth(l)))).toBeLessThanOrEqual(200);
  });

  it('shows AHEAD and CHANGES in the row and the diff stat per file in the detail pane', async () => {
    const diff = { ahead: 3, added: 144, removed: 12, files: [{ path: 'src/login.ts', added: 120, removed: 2 }, { path: 'src/form.ts', added: 24, removed: 10 }] };
    const ui = open([fakeRow({ status: 'working', branch: 'with-diff', workspace: '/w/app--1' }, { diff })]);
    await ui.shows('with-diff');
    expect(ui.frame().split('\n').find((l) => l.includes('with-diff'))).toMatch(/with-diff\s+(summary \d+\s+)?working\s+3\s+\+144 -12\s/);
    expect(ui.frame()).toContain('3 ahead · +144 -12 · 2 files');
    expect(ui.frame()).toContain('src/login.ts +120 -2');
  });

  it('redraws for the new size: 80 columns and fewer rows, nothing wider than the terminal', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'resized', summary: 'x'.repeat(150) }, { liveness: 'alive', alive: ['worker'] })]);
    await ui.shows('worker pane line');
    ui.resize(80, 16);
    // Under 20 rows the detail pane is left out.
    await ui.hides('worker pane line');
    for (const line of ui.frame().split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    ui.resize(120, 30);
    await ui.shows('worker pane line');
  });

  it("puts the runtime's keys back through the sanitiser, and keeps the footer within the terminal by display width", async () => {
    // A plugin's text: wide characters, and a terminal title sequence that must stay inert.
    const attach = new SettableValue<AttachInfo | null>({ mode: 'attach', back: '前缀前缀前缀前缀 d\u001b]0;pwned\u0007', prefix: '前缀前缀前缀前缀' });
    const ui = open([fakeRow({ status: 'working', branch: 'wide' }, { liveness: 'alive', alive: ['worker'] })], { attach });
    await ui.shows('wide');
    ui.resize(80, 24);
    const footer = () => ui.frame().split('\n').find((l) => l.includes('⏎ attach')) ?? '';
    await vi.waitFor(() => expect(displayWidth(footer()), ui.frame()).toBeLessThanOrEqual(80), { timeout: 2000, interval: 10 });
    expect(footer()).toContain('⏎ attach (前缀前缀前缀前缀 d␛]0;pwned␇ back)');
    expect(ui.frame()).not.toContain('\u001b]0;');
    await ui.press('?');
    // At 80x24 the help scrolls: how to come back is at its end.
    for (let i = 0; i < 30; i++) await ui.press('j');
    await ui.shows('detaches back here');
    expect(ui.frame()).toContain('d␛]0;pwned␇');
    expect(ui.frame()).not.toContain('\u001b]0;');
  });

  it('keeps the header within 80 columns with a long monitor label and a long scope', async () => {
    const monitor = { get: () => 'monitor: dashboard pid 4194304 (standing by behind another long label)', subscribe: () => () => undefined };
    const ui = open([fakeRow({ status: 'working', branch: 'narrow' })], { monitor, scope: 'a-project-with-a-rather-long-name-indeed' });
    await ui.shows('narrow');
    ui.resize(80, 24);
    const header = () => ui.frame().split('\n')[0] ?? '';
    await vi.waitFor(() => expect(displayWidth(header()), ui.frame()).toBeLessThanOrEqual(80), { timeout: 2000, interval: 10 });
    expect(header()).toContain('monitor: dashboard pid');
    expect(header().startsWith('Orange · a-project')).toBe(true);
    // The left side is cut with an ellipsis and a space still parts it from the right one.
    expect(header()).toMatch(/^Orange · a-project\S*… +0 agents · 0 need you · monitor: dashboard pid/);
    expect(ui.frame().split('\n')[1]).toContain('TASK');
  });

  it('aligns the columns after a branch of wide characters or emoji', async () => {
    const ui = open([fakeRow({ status: 'working', branch: '功能/登录表单' }), fakeRow({ status: 'working', branch: '🚀-launch' }), fakeRow({ status: 'working', branch: 'ascii-only' })]);
    await ui.shows('ascii-only');
    const lines = ui.frame().split('\n');
    const columnOf = (branch: string) => {
      const line = lines.find((l) => l.includes(branch)) ?? '';
      return displayWidth(line.slice(0, line.indexOf('working')));
    };
    expect(columnOf('功能')).toBe(columnOf('ascii-only'));
    expect(columnOf('🚀')).toBe(columnOf('ascii-only'));
  });

  it('shows the search as typed through the sanitiser: a C1 control is made visible', async () => {
    const ui = open([fakeRow({ status: 'working', branch: 'needle' })]);
    await ui.shows('needle');
    await ui.press('/');
    await ui.press('a\u009b2Jb');
    await ui.shows('(Enter keep, Esc clear)');
    expect(ui.frame()).not.toContain('\u009b');
    expect(ui.frame()).toMatch(/\/a.+2Jb▏/);
  });
});

describe('clarification questions', () => {
  const QUESTIONS = 'Asked (round 1):\n1. Which form crashes: login or sign-up?\n2. Since which release?';
  const body = (questions: string) => `## Context\n\nit is broken\n\n## Questions\n\n${questions}\n`;
  const asking = (status = 'awaiting_clarification') => fakeRow({ status, branch: 'unclear-task' }, {}, pipelineWorkflow);

  it('shows the ## Questions of a pipeline task awaiting clarification in the detail pane, where no agent window is, sanitised', async () => {
    const row = asking();
    const ui = open([row], {}, { [row.meta.id]: body(`${QUESTIONS}\n3. evil \u001b]52;c;aGk=\u0007 \u001b[2J`) });
    await ui.shows('Which form crashes: login or sign-up?');
    expect(ui.frame()).toContain('## Questions');
    expect(ui.frame()).toContain('2. Since which release?');
    expect(ui.frame()).not.toContain('no worker window');
    expect(ui.frame()).not.toMatch(/\u001b\]|\u001b\[2J/);
    expect(ui.frame()).toContain('␛]52;c;aGk=␇');
    // It waits for you: counted in the header.
    expect(ui.frame()).toContain('1 needs you');
  });

  it('shows the latest questions where they do not all fit, saying how many lines are above', async () => {
    const row = asking();
    const rounds = Array.from({ length: 30 }, (_, i) => `Asked (round ${i + 1}):\n1. question ${i + 1}?\nAnswered: answer ${i + 1}`).join('\n\n');
    const ui = open([row], {}, { [row.meta.id]: body(rounds) });
    await ui.shows('1. question 30?');
    expect(ui.frame()).toMatch(/## Questions \(\d+ more lines above: v\)/);
    expect(ui.frame()).not.toContain('question 1?');
  });

  it('a opens the line prompt and sends the typed answer to the clarify call', async () => {
    const row = asking();
    const ui = open([row], {}, { [row.meta.id]: body(QUESTIONS) });
    await ui.shows('a answer');
    await ui.press('a');
    await ui.shows('Answer to ## Questions');
    // The questions stay on screen while the answer is typed.
    expect(ui.frame()).toContain('Which form crashes');
    await ui.press('the login form, since 2.3');
    await ui.shows('the login form, since 2.3▏');
    await ui.press('\r');
    await ui.shows('clarify done');
    expect(ui.actions.calls).toEqual([`clarify ${row.meta.id} the login form, since 2.3`]);
  });

  it("shows the clarify call's refusal of an empty answer in the status bar", async () => {
    const row = asking();
    const ui = open([row]);
    ui.actions.refuse.set('clarify', new OrangeError('E_INVALID_INPUT', 'the clarification is empty; say what the task is about'));
    await ui.shows('a answer');
    await ui.press('a');
    await ui.shows('Answer to ## Questions');
    await ui.press('\r');
    await ui.shows('the clarification is empty; say what the task is about');
    expect(ui.frame()).not.toContain('Answer to ## Questions');
    expect(ui.actions.calls).toEqual([`clarify ${row.meta.id}`]);
  });

  it('Esc leaves the prompt without answering', async () => {
    const ui = open([asking()]);
    await ui.shows('a answer');
    await ui.press('a');
    await ui.shows('Answer to ## Questions');
    await ui.press('half an answer');
    await ui.press('\u001b');
    await ui.hides('Answer to ## Questions');
    expect(ui.actions.calls).toEqual([]);
  });

  it('a on a task that waits for no answer says so, without a prompt or a call', async () => {
    const row = fakeRow({ status: 'working', branch: 'busy-task' });
    const ui = open([row], {}, { [row.meta.id]: body(QUESTIONS) });
    await ui.shows('busy-task');
    expect(ui.footer()).not.toContain('a answer');
    await ui.press('a');
    await ui.shows(`task ${row.meta.id} is working; a answers the questions of a task awaiting clarification`);
    expect(ui.frame()).not.toContain('Answer to ## Questions');
    // Questions left from an earlier clarification are not shown once the task moved on.
    expect(ui.frame()).not.toContain('Which form crashes');
    expect(ui.actions.calls).toEqual([]);
  });

  it("a task in clarification: its questions above the waiting worker's window, and a attaches to answer there", async () => {
    const row = fakeRow({ status: 'clarification', branch: 'asks-you', worker_spawn: 'S1' }, { liveness: 'alive', alive: ['worker'], active: true });
    const ui = open([row], {}, { [row.meta.id]: body('1. Should the old endpoint stay?') });
    await ui.shows('1. Should the old endpoint stay?');
    await ui.shows('worker pane line');
    const lines = ui.frame().split('\n');
    expect(lines.findIndex((l) => l.includes('Should the old endpoint stay?'))).toBeLessThan(lines.findIndex((l) => l.includes('worker pane line')));
    expect(ui.footer()).toContain('a answer');
    await ui.press('a');
    expect(ui.attach).toHaveBeenCalledTimes(1);
    expect((ui.attach.mock.calls[0]?.[0] as TaskRow).meta.id).toBe(row.meta.id);
    expect(ui.attach.mock.calls[0]?.[1]).toBe('worker');
    expect(ui.actions.calls).toEqual([]);
  });

  it('a task in clarification whose worker is not running: the questions shown, and a says Enter restarts the worker', async () => {
    const row = fakeRow({ status: 'clarification', branch: 'asks-you' }, { liveness: 'dead', active: true });
    const ui = open([row], {}, { [row.meta.id]: body('1. Should the old endpoint stay?') });
    await ui.shows('1. Should the old endpoint stay?');
    await ui.press('a');
    await ui.shows('Enter restarts it, then a attaches');
    expect(ui.attach).not.toHaveBeenCalled();
  });
});
