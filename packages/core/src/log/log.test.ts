import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Logger } from './log.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('Logger', () => {
  it('writes a field holding escapes so that the file is inert on a terminal and parses back exactly', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orange-log-'));
    const file = join(dir, 'orange.log');
    const hostile = 'boom \x1b]0;pwned\x07 \x1b[2J \u009b31m \u202eevil\u202c\nline two';
    new Logger(file).error('hook failed', { error: hostile });
    const text = await readFile(file, 'utf8');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(text.split('\n')).toHaveLength(2);
    expect(JSON.parse(text)).toMatchObject({ level: 'error', msg: 'hook failed', error: hostile });
  });

  it('writes records at its level and above only, for its children too (config logLevel: the lowest level written)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orange-log-'));
    const file = join(dir, 'orange.log');
    const logger = new Logger(file, 'warn');
    for (const one of [logger, logger.child('tmux')]) {
      one.debug('d');
      one.info('i');
      one.warn('w');
      one.error('e');
    }
    const records = (await readFile(file, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: string; component: string });
    expect(records.map((r) => `${r.component} ${r.level}`)).toEqual(['core warn', 'core error', 'tmux warn', 'tmux error']);
  });

  it('renames orange.log to orange.log.1 once it reaches 10 MB, keeping one generation', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orange-log-'));
    const file = join(dir, 'orange.log');
    const MB10 = 10 * 1024 * 1024; // data.md: "At 10 MB the file is renamed to orange.log.1 (one generation kept)"
    const lines = async (path: string) => (await readFile(path, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string });
    const logger = new Logger(file);
    logger.info('first');
    // One byte short of the limit: the next record still goes into the same file.
    await truncate(file, MB10 - 1);
    logger.info('second');
    expect(existsSync(`${file}.1`)).toBe(false);
    expect((await readFile(file, 'utf8')).endsWith('"msg":"second"}\n')).toBe(true);
    // Exactly at the limit: this record starts a new file, the full one is kept beside it.
    await truncate(file, MB10);
    logger.info('third');
    expect((await stat(`${file}.1`)).size).toBe(MB10);
    expect((await lines(file)).map((r) => r.msg)).toEqual(['third']);
    // The next rotation replaces orange.log.1: one generation, never a .2.
    await writeFile(file, `${'x'.repeat(MB10)}\n`);
    logger.info('fourth');
    expect((await readFile(`${file}.1`, 'utf8')).startsWith('xxx')).toBe(true);
    expect((await lines(file)).map((r) => r.msg)).toEqual(['fourth']);
    expect(existsSync(`${file}.2`)).toBe(false);
  });
});
