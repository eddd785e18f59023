import { OrangeError } from '@orange/core';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeRow, FakeSource, monitorHere, RecordingActions } from '../../test/fake-dashboard.js';
import type { TaskRow } from '../task-row.js';
import { App, type AppProps } from './app.js';

const instances: Array<{ unmount: () => void }> = [];
afterEach(() => {
  for (const i of instances.splice(0)) i.unmount();
});

function open(rows: TaskRow[], overrides: Partial<AppProps> = {}) {
  const source = new FakeSource(rows);
  const actions = new RecordingActions();
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
  return { source, actions, quit, attach, opened, frame, shows, press };
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

  it('shows the selected task\'s summary under it and moves the selection with j and k', async () => {
    const a = fakeRow({ status: 'working', branch: 'a', summary: 'first summary' });
    const b = fakeRow({ status: 'working', branch: 'b', summary: 'second summary' });
    const ui = open([a, b]);
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
    await ui.shows('(active)');
    expect(ui.frame()).not.toContain('old-one');
    await ui.press('f');
    await ui.shows('(done)');
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
  it('cancels only after y at the confirmation', async () => {
    const row = fakeRow({ status: 'working', branch: 'to-cancel' });
    const ui = open([row]);
    await ui.shows('to-cancel');
    await ui.press('x');
    await ui.shows('[y/N]');
    await ui.press('n');
    await ui.shows('not confirmed');
    expect(ui.actions.calls).toEqual([`checkCancel ${row.meta.id}`]);
    await ui.press('x');
    await ui.shows('[y/N]');
    await ui.press('y');
    await ui.shows('cancel done');
    expect(ui.actions.calls).toContain(`cancel ${row.meta.id}`);
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
