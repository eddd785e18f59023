import { realpath, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { OrangeError } from '@orange/core';

/** What `orange project add` learns about a repository before registering it. */
export interface RepositoryFacts {
  /** The top of the work tree (realpath). */
  readonly path: string;
  /** The remote's default branch (origin/HEAD), else the branch checked out, else main. */
  readonly defaultBranch: string;
  /** A project name derived from the directory name. */
  readonly suggestedName: string;
}

export async function inspectRepository(dir: string): Promise<RepositoryFacts> {
  const absolute = resolve(dir);
  const info = await stat(absolute).catch(() => null);
  if (!info?.isDirectory()) throw new OrangeError('E_INVALID_INPUT', `${absolute} is not a directory`);
  const top = await git(absolute, ['rev-parse', '--show-toplevel']);
  if (top === null) throw new OrangeError('E_INVALID_INPUT', `${absolute} is not inside a git repository`);
  const path = await realpath(top);
  const remoteHead = await git(path, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  const current = await git(path, ['branch', '--show-current']);
  const defaultBranch = remoteHead?.replace(/^origin\//, '') || current || 'main';
  return { path, defaultBranch, suggestedName: projectNameFrom(basename(path)) };
}

/** `name` if no project has it, else the first of `name-2`, `name-3`, … that is free (within the 64-character limit). */
export function freeProjectName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${name.slice(0, 64 - suffix.length).replace(/[-.]+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** A directory name made into a valid project name (letters, digits, dot, dash, underscore). */
function projectNameFrom(dir: string): string {
  return dir.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/-{2,}/g, '-').replace(/^[-._]+|[-.]+$/g, '').slice(0, 64) || 'project';
}

async function git(cwd: string, args: readonly string[]): Promise<string | null> {
  // Loaded on first use: execa costs ~100 ms of start-up, and most CLI calls start no process.
  const { execa } = await import('execa');
  const result = await execa('git', ['-C', cwd, ...args], { reject: false, stdin: 'ignore' });
  return result.exitCode === 0 ? String(result.stdout).trim() : null;
}
