import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrangeError } from '../errors/errors.js';
import type { Task, TaskMeta } from '../task/task.js';
import { OrangePaths } from './paths.js';
import { newTaskMeta, parseFrontMatter, parseTaskFile, serializeMeta, serializeTask } from './task-file.js';
import { TaskStore } from './task-store.js';

const ID = 'AbCdEfGhIjKlMnOpQrStU';
const FILE = '/home/u/orange/tasks/demo/AbCdEfGhIjKlMnOpQrStU/TASK.md';

let dir: string;
let marker: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-task-file-'));
  marker = join(dir, 'executed');
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** Front matter in `engine` whose evaluation would write the marker file: proof that it ran. */
function payload(engine: string, eol = '\n'): string {
  const code = `{ status: (()=>{ require('fs').writeFileSync(${JSON.stringify(marker)},'x'); return 'working' })(), id: '${ID}', project: 'demo', branch: 'b', created_at: 'x', updated_at: 'x' }`;
  return `---${engine}${eol}${code}${eol}---${eol}## Plan${eol}${eol}APPROACH: x${eol}`;
}

function refusal(fn: () => unknown): OrangeError {
  try {
    fn();
  } catch (error) {
    if (error instanceof OrangeError) return error;
    throw error;
  }
  throw new Error('expected a refusal, but the text parsed');
}

describe('parseTaskFile refuses every front matter engine but YAML', () => {
  it('the ---js payload is live: gray-matter with its default engines runs it', () => {
    // Without this control the refusal tests below could pass against a payload that never worked.
    const matter = createRequire(import.meta.url)('gray-matter') as (text: string) => { data: Record<string, unknown> };
    expect(matter(payload('js')).data.status).toBe('working');
    expect(existsSync(marker)).toBe(true);
  });

  it.each(['js', 'javascript', 'json', 'coffee', 'coffeescript', 'cson', 'toml', 'JS', ' js'])(
    'refuses ---%s with E_FRONTMATTER naming the engine and the file, running nothing',
    (engine) => {
      const error = refusal(() => parseTaskFile(payload(engine), FILE));
      expect(error.code).toBe('E_FRONTMATTER');
      expect(error.message).toContain(`"---${engine.trim()}"`);
      expect(error.message).toContain(FILE);
      expect(error.message).toContain('YAML only');
      expect(existsSync(marker)).toBe(false);
    },
  );

  it('refuses ---js with CRLF line endings, running nothing', () => {
    const error = refusal(() => parseTaskFile(payload('js', '\r\n'), FILE));
    expect(error).toMatchObject({ code: 'E_FRONTMATTER', message: expect.stringContaining('"---js"') });
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a ---js TASK.md on disk through store.read, and store.list reports it unreadable, running nothing', async () => {
    const store = new TaskStore(new OrangePaths(dir));
    await mkdir(store.paths.agentDir('demo', ID), { recursive: true });
    await writeFile(store.paths.taskFile('demo', ID), payload('js'));
    await expect(store.read('demo', ID)).rejects.toMatchObject({ code: 'E_FRONTMATTER', message: expect.stringContaining('"---js"') });
    const listed = await store.list('demo');
    expect(listed.tasks).toEqual([]);
    expect(listed.unreadable).toEqual([{ project: 'demo', id: ID, error: expect.stringContaining('"---js"') }]);
    expect(existsSync(marker)).toBe(false);
  });

  it('does not evaluate YAML tags that other loaders map to code', () => {
    const text = `---\nid: ${ID}\nproject: demo\nbranch: b\nstatus: !!js/function "function () { return 1 }"\ncreated_at: x\nupdated_at: x\n---\n`;
    expect(refusal(() => parseTaskFile(text, FILE)).code).toBe('E_FRONTMATTER');
  });

  it('refuses a file with no front matter, naming the file', () => {
    const error = refusal(() => parseTaskFile('## Plan\n\nAPPROACH: x\n', FILE));
    expect(error).toMatchObject({ code: 'E_FRONTMATTER', message: `${FILE} has no YAML front matter (it must start with a "---" line)` });
  });

  it('refuses front matter that is never closed, naming the file', () => {
    const error = refusal(() => parseTaskFile(`---\nid: ${ID}\nstatus: planning\n\n## Plan\n`, FILE));
    expect(error).toMatchObject({ code: 'E_FRONTMATTER', message: `${FILE} has unterminated front matter (no closing "---" line)` });
  });

  it('refuses a field written twice (an agent adding a second status line) instead of taking either', () => {
    const text = `---\nid: ${ID}\nproject: demo\nbranch: b\nstatus: planning\nstatus: done\ncreated_at: x\nupdated_at: x\n---\n`;
    const error = refusal(() => parseTaskFile(text, FILE));
    expect(error).toMatchObject({ code: 'E_FRONTMATTER', message: `${FILE} has malformed YAML front matter: duplicated mapping key (5:1)` });
  });

  it('refuses malformed YAML with E_FRONTMATTER, not a parser stack', () => {
    const error = refusal(() => parseTaskFile(`---\nid: ${ID}\nstatus: [unclosed\n---\n`, FILE));
    expect(error.code).toBe('E_FRONTMATTER');
    expect(error.message).toContain('malformed YAML');
    expect(error.message).not.toContain('\n');
  });

  it.each([
    ['a list', '- a\n- b\n'],
    ['a plain string', 'just some text\n'],
    ['a number', '42\n'],
  ])('refuses front matter that is %s instead of a mapping', (_, frontMatter) => {
    const error = refusal(() => parseTaskFile(`---\n${frontMatter}---\n`, FILE));
    expect(error).toMatchObject({ code: 'E_FRONTMATTER', message: `${FILE} front matter must be a YAML mapping` });
  });

  it('refuses a missing required field, naming it and saying what is wrong', () => {
    const error = refusal(() => parseTaskFile(`---\nid: ${ID}\nproject: demo\nbranch: b\ncreated_at: x\nupdated_at: x\n---\n`, FILE));
    expect(error).toMatchObject({ code: 'E_FRONTMATTER', message: `${FILE}: field "status" Invalid input: expected string, received undefined` });
  });
});

describe('parseTaskFile reads plain --- YAML', () => {
  it('parses the fields, fills defaults and keeps the body after the closing line', () => {
    const text = `---\nid: ${ID}\nproject: demo\nbranch: feature/x\nstatus: planning\nsummary: add a button\ncreated_at: 2025-01-02T03:04:05.000Z\nupdated_at: 2025-01-02T03:04:05.000Z\n---\n\n## Plan\n\nAPPROACH: x\n`;
    const task = parseTaskFile(text, FILE);
    expect(task.meta).toMatchObject({ id: ID, project: 'demo', branch: 'feature/x', status: 'planning', summary: 'add a button', review_round: 0, attention: null });
    // Core-schema YAML keeps timestamps as the strings they were written as.
    expect(task.meta.created_at).toBe('2025-01-02T03:04:05.000Z');
    expect(task.body).toBe('## Plan\n\nAPPROACH: x\n');
  });

  it.each([
    ['nothing', ''],
    ['blank lines', '\n  \n'],
    ['only a comment', '# nothing set yet\n'],
  ])('reads front matter holding %s as no fields', (_, frontMatter) => {
    expect(parseFrontMatter(frontMatter, FILE)).toEqual({});
  });

  it('drops only the one blank line after the closing line, keeping a body written without it whole', () => {
    const head = `---\nid: ${ID}\nproject: demo\nbranch: b\nstatus: working\ncreated_at: x\nupdated_at: x\n---\n`;
    expect(parseTaskFile(`${head}first line\nsecond line\n`, FILE).body).toBe('first line\nsecond line\n');
    expect(parseTaskFile(`${head}\n\nafter two blank lines\n`, FILE).body).toBe('\nafter two blank lines\n');
  });

  it('accepts an opening line with trailing spaces', () => {
    const text = `--- \t\nid: ${ID}\nproject: demo\nbranch: b\nstatus: working\ncreated_at: x\nupdated_at: x\n---\nbody\n`;
    expect(parseTaskFile(text, FILE).meta.status).toBe('working');
  });
});

describe('serializeTask → parseTaskFile round trip', () => {
  function task(meta: Record<string, unknown>, body: string): Task {
    return { meta: newTaskMeta({ id: ID, project: 'demo', branch: 'orange-tasks/x', status: 'working', ...meta }), body };
  }

  it.each([
    ['an empty body', ''],
    ['sections', '## Plan\n\nAPPROACH: split it\nTOUCHING: a.ts\n\n## Handoff\n\nDONE: it\n'],
    ['--- lines and front-matter look-alikes', '---\nstatus: done\n---\n\ntext\n---js\n{ x: 1 }\n'],
    ['CRLF and unicode', 'Ünïcödé ✓ 🍊\r\nsecond line\r\n'],
  ])('keeps %s byte for byte', (_, body) => {
    const original = task({}, body);
    const parsed = parseTaskFile(serializeTask(original), FILE);
    expect(parsed.body).toBe(body);
    expect(parsed.meta).toEqual(original.meta);
  });

  it('keeps a body that starts with a blank line', () => {
    const original = task({}, '\n\nindented start\n');
    expect(parseTaskFile(serializeTask(original), FILE).body).toBe(original.body);
  });

  it('keeps meta values that YAML would otherwise retype', () => {
    const original = task(
      {
        summary: 'fix: "quoted" text\nsecond line --- with # hash and: colon',
        pr_url: 'https://example.com/pr/1',
        effort: 'true',
        harness: '123',
        review_harness: 'null',
        workspace: '2025-01-02',
        review_round: 2,
        // Workflow-defined scalar fields ride along.
        approved: false,
        score: 1.5,
        ticket: '007',
        note: null,
      },
      'body\n',
    );
    const parsed = parseTaskFile(serializeTask(original), FILE);
    expect(parsed.meta).toEqual(original.meta);
    expect(parsed.meta.effort).toBe('true');
    expect(parsed.meta.harness).toBe('123');
    expect(parsed.meta.review_harness).toBe('null');
    expect((parsed.meta as Record<string, unknown>).ticket).toBe('007');
  });

  it('is a fixed point: serializing what was parsed gives the same text', () => {
    const text = serializeTask(task({ summary: 'x', extra: 'y' }, '## Plan\n\nAPPROACH: x\n'));
    expect(serializeTask(parseTaskFile(text, FILE))).toBe(text);
  });

  it('ends the file with a newline when the body has none, and reads that newline back as part of the body', () => {
    const text = serializeTask(task({}, 'no newline at the end'));
    expect(text.endsWith('\n\nno newline at the end\n')).toBe(true);
    expect(parseTaskFile(text, FILE).body).toBe('no newline at the end\n');
  });

  it('writes workflow fields after the known ones, in alphabetical order', () => {
    const lines = serializeMeta(task({ zeta: 1, alpha: 'a', mid: true }, '').meta).split('\n');
    expect(lines.slice(-4)).toEqual(['alpha: a', 'mid: true', 'zeta: 1', '']);
  });

  it('writes a known field left undefined as null', () => {
    const meta = { ...task({}, '').meta, summary: undefined } as unknown as TaskMeta;
    expect(serializeMeta(meta).split('\n')).toContain('summary: null');
  });

  it('writes a long summary on one line, as a person reads and edits it', () => {
    const summary = `${'word '.repeat(40)}end`;
    expect(serializeMeta(task({ summary }, '').meta).split('\n')).toContain(`summary: ${summary}`);
  });

  it('writes the known fields first, status near the top, so a person can read TASK.md', () => {
    const lines = serializeTask(task({ zeta: 1 }, '')).split('\n');
    expect(lines.slice(0, 5)).toEqual(['---', `id: ${ID}`, 'project: demo', 'branch: orange-tasks/x', 'status: working']);
    expect(lines.indexOf('zeta: 1')).toBeGreaterThan(lines.findIndex((l) => l.startsWith('updated_at: ')));
  });
});
