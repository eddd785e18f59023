import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newTaskMeta } from './task-file.js';
import { stateAfterRender } from './task-state.js';
import { readTaskState, writeTaskState } from './task-state-file.js';

const ID = 'AbCdEfGhIjKlMnOpQrStU';
const WHAT = `task ${ID}: state.json`;

let root: string;
let taskDir: string;
let file: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'orange-state-')));
  taskDir = join(root, ID);
  await mkdir(taskDir);
  file = join(taskDir, 'state.json');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const meta = newTaskMeta({ id: ID, project: 'demo', branch: 'feat/x', status: 'planning', summary: 'one', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });

/** The error readTaskState throws for `text` as the state file. */
async function refusal(text: string): Promise<unknown> {
  await writeFile(file, text);
  try {
    readTaskState(file, taskDir, WHAT);
  } catch (error) {
    return error;
  }
  throw new Error('read without an error');
}

describe('readTaskState', () => {
  it('reads no state for a task without a state file (written by an older Orange)', () => {
    expect(readTaskState(file, taskDir, WHAT)).toBeNull();
  });

  it('reads back what writeTaskState wrote, one JSON line', async () => {
    const state = stateAfterRender(null, meta, { ino: 7, size: 120, mtimeMs: 1_700_000_000_000.5 });
    await writeTaskState(file, state);
    expect(await readFile(file, 'utf8')).toBe(`${JSON.stringify(state)}\n`);
    expect(readTaskState(file, taskDir, WHAT)).toEqual(state);
  });

  it('refuses a file that is not JSON, naming the repair command', async () => {
    expect(await refusal('{broken')).toMatchObject({ code: 'E_UNREADABLE', message: `${WHAT} is not valid JSON (edited by hand?); run: orange task repair ${ID}` });
  });

  it('refuses JSON that is not a state, naming the first wrong field by its path and the repair command', async () => {
    expect(await refusal('[]')).toMatchObject({
      code: 'E_UNREADABLE',
      message: `${WHAT}: state Invalid input: expected object, received array; run: orange task repair ${ID}`,
    });
    expect(await refusal('{"v":2}')).toMatchObject({ code: 'E_UNREADABLE', message: `${WHAT}: v Invalid input: expected 1; run: orange task repair ${ID}` });
    const wrongId = JSON.stringify({ ...stateAfterRender(null, meta, null), meta: { ...meta, id: 'short' } });
    expect(await refusal(wrongId)).toMatchObject({
      code: 'E_UNREADABLE',
      message: `${WHAT}: meta.id must be 21 characters of [0-9A-Za-z]; run: orange task repair ${ID}`,
    });
  });
});
