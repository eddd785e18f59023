import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OrangeError } from '../errors/errors.js';
import { sandbox } from '../../test/fixtures.js';
import { assertBranchName, assertProjectName, assertTaskId, branchNameProblem, newTaskId, projectNameProblem } from './names.js';
import { OrangePaths } from './paths.js';
import { ProjectStore } from './projects.js';
import { TaskStore } from './task-store.js';

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof OrangeError ? error.code : `not an OrangeError: ${String(error)}`;
  }
}

// Project names become directory names under $ORANGE_HOME/tasks and workspaces.
const BAD_PROJECTS: [string, string][] = [
  ['empty', ''],
  ['a parent directory', '..'],
  ['the current directory', '.'],
  ['a path escape inside', 'a/../b'],
  ['an absolute path', '/etc'],
  ['a nested path', 'team/web'],
  ['a backslash path', 'a\\b'],
  ['a leading "-" (read as an option)', '-rf'],
  ['a leading "."', '.hidden'],
  ['a leading "_"', '_x'],
  ['a space', 'my app'],
  ['a leading space', ' web'],
  ['a tab', 'a\tb'],
  ['a trailing newline', 'web\n'],
  ['a NUL', 'we\u0000b'],
  ['an escape character', 'web\u001b[31m'],
  ['"--" (separates the workspace number)', 'web--2'],
  ['a trailing "."', 'web.'],
  ['a colon (tmux target separator)', 'a:b'],
  ['65 characters', 'a'.repeat(65)],
  ['a non-ASCII letter', 'wéb'],
];

const GOOD_PROJECTS = ['web', 'my-app', 'my_app', 'v1.2', 'A', '9lives', 'a'.repeat(64), 'a..b'];

describe('project names', () => {
  it.each(BAD_PROJECTS)('refuses %s with E_INVALID_NAME', (_, name) => {
    expect(projectNameProblem(name)).toEqual(expect.any(String));
    expect(codeOf(() => assertProjectName(name))).toBe('E_INVALID_NAME');
  });

  it.each(GOOD_PROJECTS)('accepts %j', (name) => {
    expect(projectNameProblem(name)).toBeNull();
    expect(assertProjectName(name)).toBe(name);
  });

  it('quotes the refused name in the message so the user sees what was wrong', () => {
    expect(() => assertProjectName('a/../b')).toThrow('project name "a/../b"');
  });

  it('clips a long refused name to 60 characters, an ellipsis and its length', () => {
    const name = 'a'.repeat(10_000);
    const problem = projectNameProblem(name);
    expect(problem).toBe(`project name "${'a'.repeat(60)}…" (10000 characters) must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit`);
    expect(() => assertBranchName(`-${name}`)).toThrow(`branch name "-${'a'.repeat(59)}…" (10001 characters) is longer than 200 characters`);
    expect(() => assertTaskId(name)).toThrow(/^task id "a{60}…" \(10000 characters\) is not valid/);
    expect(projectNameProblem(`${'b'.repeat(60)}.`)).toBe(`project name "${'b'.repeat(60)}…" (61 characters) must not end with "."`);
  });

  it('quotes a refused name of exactly 60 characters whole', () => {
    const name = `${'a'.repeat(59)}.`;
    expect(projectNameProblem(name)).toBe(`project name "${name}" must not end with "."`);
  });

  it('ProjectStore.add refuses a path-escaping name before writing projects.json', async () => {
    const home = await mkdtemp(join(tmpdir(), 'orange-names-'));
    try {
      const projects = new ProjectStore(new OrangePaths(home));
      await expect(projects.add({ name: '../escape', path: join(home, 'repo'), default_branch: 'main' })).rejects.toMatchObject({ code: 'E_INVALID_NAME' });
      expect(existsSync(join(home, 'projects.json'))).toBe(false);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('ProjectStore.add says which of name and path is taken (details.field), so a caller can try another name', async () => {
    const home = await mkdtemp(join(tmpdir(), 'orange-names-'));
    try {
      const projects = new ProjectStore(new OrangePaths(home));
      await projects.add({ name: 'app', path: join(home, 'repo'), default_branch: 'main' });
      await expect(projects.add({ name: 'app', path: join(home, 'other'), default_branch: 'main' })).rejects.toMatchObject({ code: 'E_PROJECT_EXISTS', details: { field: 'name' } });
      await expect(projects.add({ name: 'app-2', path: join(home, 'repo'), default_branch: 'main' })).rejects.toMatchObject({ code: 'E_PROJECT_EXISTS', details: { field: 'path' } });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

// Each is refused by `git check-ref-format --branch`, or could be read as an option.
const BAD_BRANCHES: [string, string][] = [
  ['empty', ''],
  ['a leading "-"', '-f'],
  ['"--" options', '--force'],
  ['".."', 'a..b'],
  ['a path escape', '../main'],
  ['".lock" at the end', 'a.lock'],
  ['".lock" at the end of a part', 'a.lock/b'],
  ['"@{"', 'a@{b'],
  ['"@" alone', '@'],
  ['a trailing "/"', 'feature/'],
  ['a leading "/"', '/feature'],
  ['"//"', 'a//b'],
  ['a trailing "."', 'a.'],
  ['a part starting with "."', 'a/.b'],
  ['a leading "."', '.a'],
  ['"~"', 'a~1'],
  ['"^"', 'a^1'],
  ['":"', 'a:b'],
  ['"?"', 'a?b'],
  ['"*"', 'a*b'],
  ['"["', 'a[b'],
  ['a backslash', 'a\\b'],
  ['a space', 'a b'],
  ['a tab', 'a\tb'],
  ['a trailing newline', 'main\n'],
  ['a NUL', 'ma\u0000in'],
  ['DEL', 'ma\u007fin'],
  ['HEAD', 'HEAD'],
  ['201 characters', 'a'.repeat(201)],
];

const GOOD_BRANCHES = ['orange-tasks/abc', 'feature/x-1', 'main', 'release/1.2.3', 'user@host', 'fix/é', 'x/-y', 'a{b}', 'foo.lock.x', 'a'.repeat(200)];

describe('branch names', () => {
  it.each(BAD_BRANCHES)('refuses %s with E_INVALID_NAME', (_, branch) => {
    expect(branchNameProblem(branch)).toEqual(expect.any(String));
    expect(codeOf(() => assertBranchName(branch))).toBe('E_INVALID_NAME');
  });

  it.each(GOOD_BRANCHES)('accepts %j', (branch) => {
    expect(branchNameProblem(branch)).toBeNull();
    expect(assertBranchName(branch)).toBe(branch);
  });

  it.each([
    ['-f', 'must not start with "-"'],
    ['feature/', 'must not start or end with "/"'],
    ['/feature', 'must not start or end with "/"'],
    ['a..b', 'must not contain ".."'],
    ['a//b', 'must not contain "//"'],
    ['a@{b', 'must not contain "@{" or be "@"'],
    ['@', 'must not contain "@{" or be "@"'],
    ['a b', 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\'],
    ['a.', 'must not end with "."'],
    ['a.lock/b', 'must not have a part ending with ".lock"'],
    ['a/.b', 'must not have a part starting with "."'],
    ['HEAD', 'must not be HEAD'],
  ])('says which rule %j breaks', (branch, why) => {
    expect(branchNameProblem(branch)).toBe(`branch name "${branch}" ${why}`);
  });

  it('createTask refuses a git-invalid branch and creates no task', async () => {
    const box = await sandbox();
    try {
      await expect(box.orange.engine.createTask({ project: 'demo', summary: 'x', branch: 'a..b' })).rejects.toMatchObject({
        code: 'E_INVALID_NAME',
        message: expect.stringContaining('"a..b"'),
      });
      expect((await box.orange.store.list('demo')).tasks).toEqual([]);
      expect(box.calls).toEqual([]);
    } finally {
      await box.cleanup();
    }
  });
});

describe('task ids', () => {
  it.each([
    ['empty', ''],
    ['a parent directory', '..'],
    ['a path escape of id length', '../../../../etc/passwd'],
    ['a slash inside 21 characters', 'abcdefghij/klmnopqrst'],
    ['20 characters', 'a'.repeat(20)],
    ['22 characters', 'a'.repeat(22)],
    ['a leading "-"', `-${'a'.repeat(20)}`],
    ['a "_" (outside the alphabet)', `_${'a'.repeat(20)}`],
    ['a trailing newline', `${'a'.repeat(21)}\n`],
    ['a space', `${'a'.repeat(10)} ${'a'.repeat(10)}`],
  ])('refuses %s with E_INVALID_NAME', (_, id) => {
    expect(codeOf(() => assertTaskId(id))).toBe('E_INVALID_NAME');
  });

  it('accepts every id newTaskId generates', () => {
    for (let i = 0; i < 200; i++) {
      const id = newTaskId();
      expect(assertTaskId(id)).toBe(id);
    }
  });

  it('TaskStore refuses path-escaping projects and ids before touching the disk', async () => {
    const store = new TaskStore(new OrangePaths('/nonexistent-orange-home'));
    // Refused as names, not as E_TASK_NOT_FOUND: nothing outside $ORANGE_HOME/tasks was looked at.
    await expect(store.read('demo', '../../../../etc/passwd')).rejects.toMatchObject({ code: 'E_INVALID_NAME' });
    await expect(store.read('..', newTaskId())).rejects.toMatchObject({ code: 'E_INVALID_NAME' });
    await expect(store.remove('demo', '..')).rejects.toMatchObject({ code: 'E_INVALID_NAME' });
    await expect(store.find('../x')).rejects.toMatchObject({ code: 'E_INVALID_NAME' });
    await expect(store.list('../..')).rejects.toMatchObject({ code: 'E_INVALID_NAME' });
  });
});
