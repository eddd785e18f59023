import { lstat, realpath } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { OrangeError, TASK_ID_PATTERN, type Orange, type Project, type Task, type TaskRef } from '@orange/core';
import { callerPlace, servedCall } from '../gateway/served-call.js';

/** Where a command runs: the directory and the environment an agent's window sets. */
export interface Whereabouts {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

const here = (): Whereabouts => callerPlace();

/**
 * The project a command is about: `--project`, else the registered repository containing the
 * current directory, else the project of the worktree or task directory we are in.
 */
export async function resolveProject(orange: Orange, flag: string | undefined, at: Whereabouts = here(), howToName = 'pass --project NAME'): Promise<Project> {
  if (flag) return orange.projects.get(flag);
  const found = await inferProject(orange, at);
  if (found) return found;
  throw new OrangeError('E_PROJECT_NOT_FOUND', `not inside a registered project; run this in a repository added with orange project add, or ${howToName}`);
}

/** The project inferred from the current directory, if any. */
export async function inferProject(orange: Orange, at: Whereabouts = here()): Promise<Project | undefined> {
  const cwd = await realpath(at.cwd).catch(() => at.cwd);
  for (const dir of new Set([cwd, at.cwd])) {
    const project = await orange.projects.findByPath(dir);
    if (project) return project;
  }
  const name = ownedProjectName(orange, cwd) ?? ownedProjectName(orange, at.cwd);
  if (name) return (await orange.projects.list()).find((p) => p.name === name);
  const ref = await taskRefFromDirectory(orange, at.cwd);
  if (ref) return (await orange.projects.list()).find((p) => p.name === ref.project);
  return undefined;
}

/**
 * The task a command is about: the id given (in `--project`, else in any project), else the
 * task whose worktree we are in (its `TASK.md` link), else the agent's `ORANGE_TASK_ID`.
 */
export async function resolveTask(orange: Orange, id: string | undefined, project: string | undefined, at: Whereabouts = here()): Promise<Task> {
  const ref = await resolveTaskRef(orange, id, project, at);
  return orange.store.read(ref.project, ref.id);
}

/** Like `resolveTask`, without reading TASK.md (for `repair`, which must reach a task whose file is forged). */
export async function resolveTaskRef(orange: Orange, id: string | undefined, project: string | undefined, at: Whereabouts = here()): Promise<TaskRef> {
  const caller = servedCall()?.caller;
  const own = caller?.kind === 'agent' ? caller.task : undefined;
  // An agent's call the gateway serves reaches its own task and no other (a container's agent has only the socket).
  if (own) {
    if ((id !== undefined && id !== own.id) || (project !== undefined && project !== own.project)) {
      throw new OrangeError('E_FORBIDDEN', `an agent's call through the gateway reaches only its own task (${own.id}), not ${id ?? `project ${project ?? ''}`}`);
    }
    return own;
  }
  if (id) return project ? { project, id } : orange.store.locate(id);
  const ref = (await taskRefFromDirectory(orange, at.cwd)) ?? taskRefFromEnv(at.env);
  if (ref) return ref;
  throw new OrangeError('E_USAGE', "no task id given, and this directory is not a task's worktree; pass the task id");
}

/** A worktree or workspace directory under `$ORANGE_HOME/workspaces/<project>--<n>` names its project. */
function ownedProjectName(orange: Orange, dir: string): string | undefined {
  const inside = relative(orange.paths.workspacesDir, dir);
  if (inside === '' || inside.startsWith('..')) return undefined;
  return /^(.+)--\d+$/.exec(inside.split(sep)[0] ?? '')?.[1];
}

/** Walks up from `cwd` to a `TASK.md` that links into `$ORANGE_HOME/tasks/<project>/<id>/agent/`. */
async function taskRefFromDirectory(orange: Orange, cwd: string): Promise<{ project: string; id: string } | null> {
  const tasksDir = await realpath(orange.paths.tasksDir).catch(() => orange.paths.tasksDir);
  let dir = cwd;
  for (;;) {
    const candidate = join(dir, 'TASK.md');
    const stat = await lstat(candidate).catch(() => null);
    if (stat) {
      const target = await realpath(candidate).catch(() => null);
      const ref = target ? taskRefFromPath(relative(tasksDir, target)) : null;
      if (ref) return ref;
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** `<project>/<id>/agent/TASK.md` under the tasks folder, or `<project>/<id>/TASK.md` (a task from before `agent/`, not read since). */
function taskRefFromPath(inside: string): { project: string; id: string } | null {
  const parts = inside.split(sep);
  const known = parts.length === 4 ? parts[2] === 'agent' : parts.length === 3;
  if (!known || parts[0] === '..' || parts.at(-1) !== 'TASK.md') return null;
  const [project, id] = parts as [string, string];
  return TASK_ID_PATTERN.test(id) ? { project, id } : null;
}

function taskRefFromEnv(env: NodeJS.ProcessEnv): { project: string; id: string } | null {
  const id = env.ORANGE_TASK_ID;
  const project = env.ORANGE_PROJECT;
  return id && project ? { project, id } : null;
}
