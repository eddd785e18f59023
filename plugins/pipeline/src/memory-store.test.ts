import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isOrangeError } from '@orange/core';
import { TEST_GIT_IDENTITY } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { MEMORY_DIR, parseMemoryEntry, type MemoryEntry } from './memory.js';
import { entryFileName, forgetMemory, readMemory, recordMemory, selectMemory } from './memory-store.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...TEST_GIT_IDENTITY } }).trim();
}

/** A repository with one commit on branch `task`, as a task's worktree is. */
async function repo(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-memory-'));
  dirs.push(dir);
  git(dir, 'init', '-q', '-b', 'task');
  git(dir, 'config', 'user.name', 'T');
  git(dir, 'config', 'user.email', 't@t.invalid');
  await writeFile(join(dir, 'README.md'), 'x\n');
  git(dir, 'add', 'README.md');
  git(dir, 'commit', '-q', '-m', 'init');
  return dir;
}

function entry(fields: Partial<MemoryEntry> = {}): MemoryEntry {
  const parsed = parseMemoryEntry(JSON.stringify({ task: 'T1aaaaaaaaaaaaaaaaaaa', intent: 'bugfix', tier: 'sonnet', completed_at: '2026-11-27T04:30:00.000Z', ...fields }));
  if (!('entry' in parsed)) throw new Error(parsed.error);
  return parsed.entry;
}

describe('recording an entry in a worktree', () => {
  it('writes one file named by time and task and commits only it, on the branch the worktree is on', async () => {
    const dir = await repo();
    await writeFile(join(dir, 'work.txt'), 'the agent left this uncommitted\n');
    const saved = await recordMemory(dir, entry());
    expect(saved.file).toBe(`${MEMORY_DIR}/2026-11-27T04-30-00-000Z-T1aaaaaaaaaaaaaaaaaaa.json`);
    expect(saved.commit).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('orange: memory of task T1aaaaaaaaaaaaaaaaaaa (bugfix, passed at sonnet)');
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe(saved.file);
    expect(git(dir, 'status', '--porcelain')).toBe('?? work.txt');
    expect(JSON.parse(await readFile(join(dir, saved.file), 'utf8'))).toEqual(entry());
  });

  it('again for the same task (a resumed driver) commits nothing new', async () => {
    const dir = await repo();
    const first = await recordMemory(dir, entry());
    const again = await recordMemory(dir, entry({ completed_at: '2026-11-27T05:00:00.000Z' }));
    expect(again).toEqual({ file: first.file, commit: null });
    expect(git(dir, 'rev-list', '--count', 'HEAD')).toBe('2');
    expect(await readdir(join(dir, MEMORY_DIR))).toHaveLength(1);
  });

  it('commits a file a killed driver wrote but did not commit', async () => {
    const dir = await repo();
    await mkdir(join(dir, MEMORY_DIR), { recursive: true });
    await writeFile(join(dir, MEMORY_DIR, entryFileName(entry())), `${JSON.stringify(entry())}\n`);
    const saved = await recordMemory(dir, entry({ completed_at: '2026-11-27T05:00:00.000Z' }));
    expect(saved.commit).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(saved.file).toBe(`${MEMORY_DIR}/${entryFileName(entry())}`);
  });

  it('skips the repository hooks and commits as Orange when git knows nobody', async () => {
    const dir = await repo();
    git(dir, 'config', '--unset', 'user.name');
    git(dir, 'config', '--unset', 'user.email');
    await writeFile(join(dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const env = { ...process.env };
    const home = await mkdtemp(join(tmpdir(), 'orange-memory-home-'));
    dirs.push(home);
    // No identity anywhere: no global config, no variables, and no guess from the host name.
    process.env = { PATH: env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    try {
      git(dir, 'config', 'user.useConfigOnly', 'true');
      const saved = await recordMemory(dir, entry());
      expect(saved.commit).not.toBeNull();
    } finally {
      process.env = env;
    }
    expect(git(dir, 'log', '-1', '--format=%an <%ae>')).toBe('Orange <orange@localhost>');
  });

  it('refuses a memory folder that is a symlink out of the worktree, and one git ignores, in one sentence', async () => {
    const dir = await repo();
    const elsewhere = await mkdtemp(join(tmpdir(), 'orange-memory-elsewhere-'));
    dirs.push(elsewhere);
    await symlink(elsewhere, join(dir, '.orange'));
    const refused = await recordMemory(dir, entry()).catch((e: unknown) => e);
    expect(isOrangeError(refused) && refused.message).toBe(`.orange in ${dir} is a symlink; memory is written only into the worktree itself`);
    expect(await readdir(elsewhere)).toEqual([]);

    const ignoring = await repo();
    await writeFile(join(ignoring, '.gitignore'), '.orange/\n');
    const ignored = await recordMemory(ignoring, entry()).catch((e: unknown) => e);
    expect(isOrangeError(ignored) && ignored.message).toBe(
      `memory entry ${MEMORY_DIR}/${entryFileName(entry())} not committed: ${MEMORY_DIR} is ignored by git (a .gitignore); un-ignore it to keep the project's memory`,
    );
  });
});

describe('reading, choosing and forgetting entries', () => {
  async function withEntries(): Promise<string> {
    const dir = await repo();
    const memory = join(dir, MEMORY_DIR);
    await mkdir(memory, { recursive: true });
    const a = entry({ task: 'Aaaaaaaaaaaaaaaaaaaaa', completed_at: '2026-11-01T00:00:00.000Z' });
    const b = entry({ task: 'Bbbbbbbbbbbbbbbbbbbbb', completed_at: '2026-11-02T00:00:00.000Z', intent: 'docs' });
    await writeFile(join(memory, entryFileName(b)), JSON.stringify(b));
    await writeFile(join(memory, entryFileName(a)), JSON.stringify(a));
    await writeFile(join(memory, 'broken.json'), '{"intent":');
    await writeFile(join(memory, 'notes.txt'), 'not an entry\n');
    execFileSync('mkfifo', [join(memory, 'fifo.json')]);
    return dir;
  }

  it('lists entries oldest first and reports the files that are not entries without opening a FIFO', async () => {
    const dir = await withEntries();
    const listing = await readMemory(dir);
    expect(listing.entries.map((s) => s.entry.task)).toEqual(['Aaaaaaaaaaaaaaaaaaaaa', 'Bbbbbbbbbbbbbbbbbbbbb']);
    expect(listing.unreadable.map((u) => u.file)).toEqual([`${MEMORY_DIR}/broken.json`, `${MEMORY_DIR}/fifo.json`]);
    expect(listing.unreadable[1]?.error).toBe(`memory entry ${MEMORY_DIR}/fifo.json is unreadable: it is a FIFO`);
    // The newest files by name: entries' names start with their time, so other names come after them.
    expect((await readMemory(dir, { newest: 3 })).entries.map((s) => s.entry.task)).toEqual(['Bbbbbbbbbbbbbbbbbbbbb']);
    expect(await readMemory(join(dir, 'nowhere'))).toEqual({ entries: [], unreadable: [] });
  });

  it('chooses an entry by its number or its task id, and names the range otherwise', async () => {
    const listing = await readMemory(await withEntries());
    expect(selectMemory(listing, '2', 'demo')).toMatchObject({ n: 2, stored: { entry: { intent: 'docs' } } });
    expect(selectMemory(listing, 'Aaaaaaaaaaaaaaaaaaaaa', 'demo').n).toBe(1);
    const message = (key: string) => {
      try {
        selectMemory(listing, key, 'demo');
        return 'chosen';
      } catch (error) {
        return isOrangeError(error) ? `${error.code}: ${error.message}` : String(error);
      }
    };
    expect(message('3')).toBe('E_INVALID_INPUT: no memory entry 3: project demo has entries 1–2 (see orange memory list)');
    expect(message('0')).toBe('E_INVALID_INPUT: no memory entry 0: project demo has entries 1–2 (see orange memory list)');
    expect(message('nope')).toBe('E_INVALID_INPUT: no memory entry "nope": give its number from orange memory list or a task id (project demo has entries 1–2)');
    expect(message('1')).toBe('chosen');
  });

  it('forgets by removing the files, and refuses a path outside the memory folder', async () => {
    const dir = await withEntries();
    const listing = await readMemory(dir);
    await forgetMemory(dir, [listing.entries[0]!.file, listing.entries[0]!.file]);
    expect((await readMemory(dir)).entries.map((s) => s.entry.task)).toEqual(['Bbbbbbbbbbbbbbbbbbbbb']);
    await expect(forgetMemory(dir, ['README.md'])).rejects.toThrow('README.md is not a memory entry');
    await expect(forgetMemory(dir, [`${MEMORY_DIR}/../../README.md`])).rejects.toThrow('is not a memory entry');
  });
});
