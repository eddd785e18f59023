import { customAlphabet } from 'nanoid';
import { OrangeError } from '../errors/index.js';
import { TASK_ID_PATTERN } from '../task/index.js';

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const generate = customAlphabet(ALPHANUMERIC, 21);

/** A new task id: 21 characters of [0-9A-Za-z]. */
export function newTaskId(): string {
  return generate();
}

/** Short random id for one agent spawn (matches exit reports to the spawn they belong to). */
export const newSpawnId = customAlphabet(ALPHANUMERIC, 10);

/** Short random id that keeps two outbox entries written in the same millisecond apart. */
export const newOutboxId = customAlphabet(ALPHANUMERIC, 10);

/** Longest part of a refused name that an error message repeats. */
const ECHO_LIMIT = 60;

/**
 * A refused name as an error message quotes it: clipped, so that a pasted 10,000-character
 * argument does not become a 10,000-character "one-line" error.
 */
function quoted(name: string): string {
  if (name.length <= ECHO_LIMIT) return `"${name}"`;
  return `"${name.slice(0, ECHO_LIMIT)}…" (${name.length} characters)`;
}

const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why a project name is unusable, or null. Names become directory names and tmux session names. */
export function projectNameProblem(name: string): string | null {
  if (!PROJECT_NAME.test(name)) {
    return `project name ${quoted(name)} must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit`;
  }
  if (name.includes('--')) return `project name ${quoted(name)} must not contain "--" (it separates the workspace number)`;
  if (name.endsWith('.')) return `project name ${quoted(name)} must not end with "."`;
  return null;
}

/**
 * Why a branch name is unusable, or null. Follows git check-ref-format and also refuses
 * anything that could be read as an option (leading "-") by the git or tmux command line.
 */
export function branchNameProblem(branch: string): string | null {
  const bad = (why: string) => `branch name ${quoted(branch)} ${why}`;
  if (branch.length === 0) return 'branch name must not be empty';
  if (branch.length > 200) return bad('is longer than 200 characters');
  if (branch.startsWith('-')) return bad('must not start with "-"');
  if (branch.startsWith('/') || branch.endsWith('/')) return bad('must not start or end with "/"');
  if (branch.includes('..')) return bad('must not contain ".."');
  if (branch.includes('//')) return bad('must not contain "//"');
  if (branch.includes('@{') || branch === '@') return bad('must not contain "@{" or be "@"');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(branch)) return bad('must not contain spaces, control characters or any of ~ ^ : ? * [ \\');
  if (branch.endsWith('.')) return bad('must not end with "."');
  if (branch.split('/').some((part) => part.endsWith('.lock'))) return bad('must not have a part ending with ".lock"');
  if (branch.split('/').some((part) => part.startsWith('.'))) return bad('must not have a part starting with "."');
  if (branch === 'HEAD') return bad('must not be HEAD');
  return null;
}

/** Throws E_INVALID_NAME unless `name` is a valid project name. */
export function assertProjectName(name: string): string {
  const problem = projectNameProblem(name);
  if (problem) throw new OrangeError('E_INVALID_NAME', problem);
  return name;
}

/** Throws E_INVALID_NAME unless `branch` is a valid branch name. */
export function assertBranchName(branch: string): string {
  const problem = branchNameProblem(branch);
  if (problem) throw new OrangeError('E_INVALID_NAME', problem);
  return branch;
}

/** Throws E_INVALID_NAME unless `id` looks like a task id (so it can never escape a directory). */
export function assertTaskId(id: string): string {
  if (!TASK_ID_PATTERN.test(id)) {
    throw new OrangeError('E_INVALID_NAME', `task id ${quoted(id)} is not valid (21 characters of [0-9A-Za-z])`);
  }
  return id;
}
