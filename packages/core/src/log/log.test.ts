import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
});
