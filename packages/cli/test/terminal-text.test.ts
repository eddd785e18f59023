import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseTaskFile, serializeTask, type HistoryEvent, type LogRecord, type TaskMeta } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

// What an agent can put in a summary, a TASK.md or an error message to take over a terminal.
const ESC = '\x1b';
const BEL = '\x07';
const TITLE = `${ESC}]0;pwned${BEL}`;
const CLEAR = `${ESC}[2J`;
const CLIPBOARD = `${ESC}]52;c;cm0gLXJmIH4K${ESC}\\`;
const C1_CSI = '\u009b31m';
const BIDI = '\u202eevil\u202c';
const HOSTILE = `Fix ${TITLE}the ${CLEAR}bug ${CLIPBOARD} ${C1_CSI} ${BIDI}`;
/** How HOSTILE reads on screen: every control visible, nothing a terminal acts on. */
const SHOWN = 'Fix ␛]0;pwned␇the ␛[2Jbug ␛]52;c;cm0gLXJmIH4K␛\\ \\u009b31m \\u202eevil\\u202c';

/** Anything a terminal acts on (newline and tab aside: the layout of a multi-line body). */
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function expectInert(output: string, what: string): void {
  const found = ACTIVE.exec(output);
  const code = found?.[0].codePointAt(0)?.toString(16).padStart(4, '0');
  expect(found, `${what} printed U+${code} raw at ${found?.index}: ${JSON.stringify(output)}`).toBeNull();
}

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create();
});
afterAll(() => box?.cleanup());

describe('summaries are one line', () => {
  it('task create folds a newline in the summary into a space and keeps every other character', async () => {
    const task = await box.createTask(['feature/folded', `${HOSTILE}\nsecond line`]);
    expect(task.summary).toBe(`${HOSTILE} second line`);
    expect((await box.task(task.id)).meta.summary).toBe(`${HOSTILE} second line`);
  });

  it('task update --summary stores a\\nb as "a b"', async () => {
    const task = await box.createTask(['feature/fold-update', 'before']);
    const out = await box.json<{ task: TaskMeta; edited: string[] }>(['task', 'update', task.id, '--summary', 'a\nb']);
    expect(out).toMatchObject({ edited: ['summary'], task: { summary: 'a b' } });
    expect((await box.task(task.id)).meta.summary).toBe('a b');
  });
});

describe('text is data on every screen', () => {
  let hostile: TaskMeta;
  let handEdited: TaskMeta;

  beforeAll(async () => {
    await box.addProject('hostile');
    hostile = await box.createTask(['feature/hostile', 'harmless', '--project', 'hostile']);
    // The agent's way in: task update --summary, which also puts the text into history and the log.
    await box.json(['task', 'update', hostile.id, '--summary', HOSTILE]);
    await box.writeSection(hostile.id, 'Notes', `line one ${CLEAR}\nline two ${TITLE}\tend\r\nline three ${C1_CSI}`, 'hostile');
    // An agent may also write the frontmatter itself, newline and all: readers must cope.
    handEdited = await box.createTask(['feature/hand-edited', 'tidy', '--project', 'hostile']);
    const file = box.paths.taskFile('hostile', handEdited.id);
    const task = parseTaskFile(await readFile(file, 'utf8'), file);
    await writeFile(file, serializeTask({ ...task, meta: { ...task.meta, summary: `first ${CLIPBOARD}\nsecond` } }));
  });

  it('task update --summary prints the new summary as one inert line; --json keeps it exactly', async () => {
    const task = await box.createTask(['feature/update-out', 'plain']);
    const human = await box.orange(['task', 'update', task.id, '--summary', HOSTILE]);
    expect(human.code, human.stderr).toBe(0);
    expectInert(human.stdout, 'task update');
    expect(human.stdout).toBe(`task ${task.id}: summary is now ${SHOWN}`);
    const json = await box.orange(['task', 'update', task.id, '--summary', `${HOSTILE} again`, '--json']);
    expectInert(json.stdout, 'task update --json');
    expect((JSON.parse(json.stdout) as { task: TaskMeta }).task.summary).toBe(`${HOSTILE} again`);
  });

  it('task list shows each task on one inert row, columns measured on what is shown; --json keeps the strings', async () => {
    const human = await box.orange(['task', 'list', '--project', 'hostile']);
    expect(human.code, human.stderr).toBe(0);
    expectInert(human.stdout, 'task list');
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines, human.stdout).toHaveLength(3);
    const rows = lines.slice(1);
    expect(rows.map((r) => r.slice(0, 21)).sort()).toEqual([hostile.id, handEdited.id].sort());
    const row = (id: string) => rows.find((r) => r.startsWith(id)) as string;
    // The summary column starts at the same place on every row.
    const summaryAt = (lines[0] as string).indexOf('SUMMARY');
    expect(row(hostile.id).slice(summaryAt)).toBe(`${SHOWN.slice(0, 59)}…`);
    expect(row(handEdited.id).slice(summaryAt)).toBe('first ␛]52;c;cm0gLXJmIH4K␛\\⏎second');

    const json = await box.orange(['task', 'list', '--project', 'hostile', '--json']);
    expectInert(json.stdout, 'task list --json');
    const { tasks } = JSON.parse(json.stdout) as { tasks: TaskMeta[] };
    expect(tasks.find((t) => t.id === hostile.id)?.summary).toBe(HOSTILE);
    expect(tasks.find((t) => t.id === handEdited.id)?.summary).toBe(`first ${CLIPBOARD}\nsecond`);
  });

  it('task show keeps the body\'s lines but no escape in the fields, the body or the history; --json keeps them', async () => {
    const human = await box.orange(['task', 'show', hostile.id, '--project', 'hostile']);
    expect(human.code, human.stderr).toBe(0);
    expectInert(human.stdout, 'task show');
    const lines = human.stdout.split('\n');
    expect(lines).toContain(`summary: ${SHOWN}`);
    expect(lines).toContain('line one ␛[2J');
    expect(lines).toContain('line two ␛]0;pwned␇\tend');
    expect(lines).toContain('line three \\u009b31m');
    const updated = lines.find((l) => l.includes('task.updated'));
    expect(updated, human.stdout).toContain('\\u009b31m \\u202eevil\\u202c');

    const edited = await box.orange(['task', 'show', handEdited.id, '--project', 'hostile']);
    expectInert(edited.stdout, 'task show (hand-edited summary)');
    expect(edited.stdout.split('\n')).toContain('summary: first ␛]52;c;cm0gLXJmIH4K␛\\⏎second');

    const json = await box.orange(['task', 'show', hostile.id, '--project', 'hostile', '--json']);
    expectInert(json.stdout, 'task show --json');
    const shown = JSON.parse(json.stdout) as { task: TaskMeta; body: string; history: HistoryEvent[] };
    expect(shown.task.summary).toBe(HOSTILE);
    expect(shown.body).toContain(`line two ${TITLE}\tend\r\nline three ${C1_CSI}`);
    expect(shown.history.find((e) => e.type === 'task.updated')).toMatchObject({ summary: { from: 'harmless', to: HOSTILE } });
  });

  it('orange log shows what agents wrote as inert lines; --json keeps the records exactly', async () => {
    const human = await box.orange(['log', '--grep', hostile.id]);
    expect(human.code, human.stderr).toBe(0);
    expectInert(human.stdout, 'orange log');
    expect(human.stdout).toContain('\\u202eevil\\u202c');
    const json = await box.orange(['log', '--grep', hostile.id, '--json']);
    expectInert(json.stdout, 'orange log --json');
    const { records } = JSON.parse(json.stdout) as { records: LogRecord[] };
    expect(records.find((r) => r.msg === 'task updated')).toMatchObject({ summary: { to: HOSTILE } });
  });

  it('project list shows a repository path with an escape on one inert row', async () => {
    const repo = join(box.dir, `odd${CLEAR}\nrepo`);
    await box.makeRepo(repo, join(box.dir, 'odd-origin.git'));
    await box.json(['project', 'add', repo, '--name', 'odd']);
    const human = await box.orange(['project', 'list']);
    expectInert(human.stdout, 'project list');
    const row = human.stdout.split('\n').find((l) => l.startsWith('odd '));
    expect(row, human.stdout).toContain(`odd␛[2J⏎repo`);
    const { projects } = await box.json<{ projects: Array<{ name: string; path: string }> }>(['project', 'list']);
    expect(projects.find((p) => p.name === 'odd')?.path).toBe(repo);
  });
});

describe('errors are one inert line', () => {
  it('a refusal quoting what an agent asked for is one inert line; --json keeps the text', async () => {
    const task = await box.createTask(['feature/bad-status', 'x']);
    const status = `w${CLEAR}${TITLE}\n${C1_CSI}`;
    const human = await box.orange(['task', 'update', task.id, '--status', status]);
    expect(human.code).toBe(1);
    expectInert(human.stderr, 'the refusal');
    expect(human.stderr).not.toContain('\n');
    // Multi-line messages are joined with " — " before they are cleaned (base-command's oneLine).
    expect(human.stderr).toMatch(/^orange: .*"w␛\[2J␛\]0;pwned␇ — \\u009b31m" is not a status/);
    const json = await box.orange(['task', 'update', task.id, '--status', status, '--json']);
    expectInert(json.stdout, 'the JSON refusal');
    expect((JSON.parse(json.stdout) as { error: string }).error).toContain(`"w${CLEAR}${TITLE}`);
  });

  it('an absurdly long message is clipped for people and whole in --json', async () => {
    const task = await box.createTask(['feature/long-status', 'x']);
    const status = 'x'.repeat(5000);
    const human = await box.orange(['task', 'update', task.id, '--status', status]);
    expect(human.code).toBe(1);
    const line = human.stderr.trimEnd();
    expect(line).not.toContain('\n');
    expect(line.length).toBeLessThanOrEqual('orange: '.length + 1000);
    expect(line.endsWith('…')).toBe(true);
    const json = await box.jsonError(['task', 'update', task.id, '--status', status]);
    expect(json.error).toContain(status);
  });
});

describe('a failing action quoting hostile text', () => {
  const message = `the hook ${TITLE}${CLEAR} broke\nat line two ${C1_CSI}`;
  const shownMessage = 'the hook ␛]0;pwned␇␛[2J broke⏎at line two \\u009b31m';
  let hostileBox: CliSandbox;
  let id: string;

  beforeAll(async () => {
    hostileBox = await CliSandbox.create({ config: hostileActionConfig(message) });
    id = (await hostileBox.createTask(['feature/hook', 'hooked'])).id;
  });
  afterAll(() => hostileBox?.cleanup());

  it('prints the transition and its warning as inert lines, and the error inert in task show and orange log', async () => {
    const moved = await hostileBox.orange(['task', 'update', id, '--status', 'reviewing']);
    expect(moved.code, moved.stderr).toBe(0);
    expectInert(moved.stdout, 'the transition');
    expect(moved.stdout.split('\n')[0]).toBe(`task ${id}: pending → reviewing`);

    const show = await hostileBox.orange(['task', 'show', id]);
    expectInert(show.stdout, 'task show');
    const failed = show.stdout.split('\n').find((l) => l.includes('hook.failed'));
    expect(failed, show.stdout).toContain(`error=${shownMessage}`);

    const log = await hostileBox.orange(['log', '--grep', 'hook failed']);
    expectInert(log.stdout, 'orange log');
    expect(log.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(log.stdout).toContain(`error=${shownMessage}`);
    const { records } = await hostileBox.json<{ records: LogRecord[] }>(['log', '--grep', 'hook failed']);
    expect(records[0]).toMatchObject({ error: message });
  });
});

/** No built-in plugins; one workflow whose pending → reviewing runs an action that throws `message`. */
function hostileActionConfig(message: string): string {
  return [
    'export default {',
    '  defaults: false,',
    "  logLevel: 'debug',",
    "  plugins: [{ name: 'hostile', apply(orange) {",
    `    orange.hooks.actions.for('hostile').tapPromise('hostile', async () => { throw new Error(${JSON.stringify(message)}); });`,
    '  } }],',
    '  workflow: {',
    "    name: 'hostile', initial: 'pending', start: 'reviewing',",
    '    states: { pending: {}, reviewing: {}, done: { terminal: true }, cancelled: { terminal: true } },',
    "    transitions: [{ from: 'pending', to: 'reviewing', by: ['agent', 'person', 'orange'], hooks: ['hostile'] }, { from: 'reviewing', to: 'done', by: ['agent', 'person', 'orange'] }, { from: 'pending', to: 'cancelled', by: ['agent', 'person', 'orange'] }],",
    "    exit: { pending: { otherwise: 'mark' }, reviewing: { otherwise: 'mark' } },",
    '    create: { pending: {}, reviewing: {} },',
    '    prompts: {},',
    '  },',
    '};',
    '',
  ].join('\n');
}
