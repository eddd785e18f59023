import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLog } from './log-reader.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const line = (msg: string, level = 'info') => `${JSON.stringify({ time: '2026-01-01T00:00:00.000Z', level, component: 'core', msg })}\n`;

describe('reading the log', () => {
  it('reads the rotated orange.log.1 before orange.log, oldest first, and only the rotated part when the current one is gone', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orange-log-reader-'));
    const file = join(dir, 'orange.log');
    await writeFile(`${file}.1`, line('old one') + line('old two', 'warn'));
    await writeFile(file, line('new one') + line('new two', 'warn'));
    const all = await readLog(file, { lines: 50 });
    expect(all.records?.map((r) => r.msg)).toEqual(['old one', 'old two', 'new one', 'new two']);
    // --lines takes the last ones across both files; a filter applies to both.
    expect((await readLog(file, { lines: 3 })).records?.map((r) => r.msg)).toEqual(['old two', 'new one', 'new two']);
    expect((await readLog(file, { lines: 50, level: 'warn' })).records?.map((r) => r.msg)).toEqual(['old two', 'new two']);
    // Rotated, and nothing logged since: the records are still there.
    await rm(file);
    expect((await readLog(file, { lines: 50 })).records?.map((r) => r.msg)).toEqual(['old one', 'old two']);
    await rm(`${file}.1`);
    expect((await readLog(file, { lines: 50 })).records).toBeNull();
  });
});
