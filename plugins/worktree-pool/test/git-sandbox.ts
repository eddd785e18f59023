import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Orange, OrangePaths, setSection, type Task, type WorkflowInput } from '@orange/core';
import { git, makeOrigin, tempDir } from '@orange/test-support';
import { execa } from 'execa';
import { worktreePool } from '../src/index.js';
import type { WorktreePoolOptionsInput } from '../src/options.js';
import { noopAgents } from './noop-agents.js';


/** Like `git`, but returns null instead of throwing when git exits non-zero. */
export async function gitMaybe(dir: string, ...args: string[]): Promise<string | null> {
  const result = await execa('git', ['-C', dir, ...args], { reject: false });
  return result.exitCode === 0 ? String(result.stdout).trim() : null;
}

/** Writes a file in `dir` and commits it. */
export async function commitFile(dir: string, file: string, content: string, message = `add ${file}`): Promise<void> {
  await writeFile(join(dir, file), content);
  await git(dir, 'add', '--', file);
  await git(dir, 'commit', '-q', '-m', message);
}

export interface PoolSandbox {
  root: string;
  home: string;
  origin: string;
  repo: string;
  orange: Orange;
  calls: string[];
  /** A second Orange on the same home (another process's view), for re-reading state. */
  reopen(): Promise<Orange>;
  /** Replaces a section of the task's body, as an agent would. */
  writeSection(task: Task, name: string, content: string): Promise<void>;
  cleanup(): Promise<void>;
}

export interface SandboxOptions {
  poolSize?: number;
  /** False: the project has no `origin` remote at all. */
  remote?: boolean;
  plugin?: WorktreePoolOptionsInput;
  /** The workflow every project runs (default: the built-in default one). */
  workflow?: WorkflowInput;
}

/** A bare `origin`, a clone with one pushed commit registered as project `demo`, and an Orange on a temp home. */
export async function poolSandbox(options: SandboxOptions = {}): Promise<PoolSandbox> {
  const root = await tempDir('pool');
  const home = join(root, 'home');
  const origin = join(root, 'origin.git');
  const repo = join(root, 'repo');
  if (options.remote === false) {
    await mkdir(repo);
    await git(repo, 'init', '-q', '-b', 'main');
    await commitFile(repo, 'README.md', '# demo\n', 'initial');
  } else {
    // No origin/HEAD, as a clone of an empty origin has none: the pool must do without it.
    await makeOrigin(origin, repo, { files: { 'README.md': '# demo\n' }, message: 'initial', originHead: false });
  }
  const calls: string[] = [];
  const workflow = options.workflow ? { workflow: options.workflow } : {};
  const create = () => Orange.create({ ...workflow, plugins: [worktreePool(options.plugin), noopAgents(calls)] }, { paths: new OrangePaths(home) });
  const orange = await create();
  await orange.projects.add({ name: 'demo', path: repo, default_branch: 'main', pool_size: options.poolSize ?? 2 });
  return {
    root,
    home,
    origin,
    repo,
    orange,
    calls,
    reopen: create,
    async writeSection(task, name, content) {
      await orange.store.withTaskLock(task.meta.project, task.meta.id, async () => {
        const fresh = await orange.store.read(task.meta.project, task.meta.id);
        await orange.store.write({ meta: fresh.meta, body: setSection(fresh.body, name, content) });
      });
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
