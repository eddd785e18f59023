import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TaskStore, type TaskMeta } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  // Every test keeps the tasks it started: enough worktrees for all of them.
  box = await CliSandbox.create({ poolSize: 16 });
});
afterAll(async () => box?.cleanup());

/**
 * The environment of the task's live worker, as Orange gave it (a fresh secret for its spawn: Orange
 * keeps only the hash, so a test issues one the way a spawn does).
 */
async function agentEnv(meta: TaskMeta): Promise<Record<string, string>> {
  const spawn = (await box.task(meta.id)).meta.worker_spawn as string;
  const secret = await new TaskStore(box.paths).identities.issue(meta.project, meta.id, 'worker', spawn);
  return { ORANGE_TASK_ID: meta.id, ORANGE_PROJECT: meta.project, ORANGE_SPAWN_ID: spawn, ORANGE_AGENT_SECRET: secret, ORANGE_ROLE: 'worker' };
}

/** A started task moved to reviewing by its agent's own requests (plan, handoff, stuck, reviewing). */
async function reviewingTask(branch: string): Promise<TaskMeta> {
  const meta = await box.startTask(branch);
  await box.toWorking(meta);
  await box.json(['task', 'update', meta.id, '--status', 'stuck']);
  await box.json(['task', 'update', meta.id, '--status', 'reviewing']);
  return meta;
}

describe("an agent's calls", () => {
  it('cannot finish or cancel their own task: both are refused with the command a person uses, and nothing changes', async () => {
    const task = await reviewingTask('authority/own-done');
    const env = await agentEnv(task);
    const before = await box.taskText(task.id);
    const done = await box.jsonError(['task', 'update', '--status', 'done'], { env, cwd: task.workspace as string });
    expect(done).toMatchObject({ code: 'E_FORBIDDEN', exit: 1, error: `reviewing → done refused: done is a person's move, not the task's agent's (orange task merge ${task.id})` });
    const cancelled = await box.jsonError(['task', 'update', '--status', 'cancelled'], { env, cwd: task.workspace as string });
    expect(cancelled.error).toBe(`reviewing → cancelled refused: cancelled is a person's move, not the task's agent's (orange task cancel ${task.id})`);
    expect(await box.taskText(task.id)).toBe(before);
  });

  it("cannot run a person's command on any task (cancel, merge, delete, project), nor write another task; reading is fine", async () => {
    const mine = await box.startTask('authority/mine');
    const other = await box.startTask('authority/other');
    const env = await agentEnv(mine);
    for (const args of [
      ['task', 'cancel', other.id, '--yes'],
      ['task', 'merge', mine.id, '--yes'],
      ['task', 'delete', other.id, '--yes'],
      ['project', 'remove', 'demo'],
      ['task', 'create', 'authority/new', 'a task of my own'],
    ]) {
      const refused = await box.jsonError(args, { env });
      expect(refused, args.join(' ')).toMatchObject({ code: 'E_FORBIDDEN', exit: 1 });
      expect(refused.error).toBe(`orange ${args.slice(0, 2).join(' ')} is a person's command, not an agent's; an agent asks for its next status with: orange task update --status <status>`);
    }
    // The web page acts as a person: an agent may not serve it to itself (nothing made, no token).
    const web = await box.jsonError(['web', '--port', '0'], { env });
    expect(web).toMatchObject({ code: 'E_FORBIDDEN', exit: 1, error: "orange web is a person's command, not an agent's; an agent asks for its next status with: orange task update --status <status>" });
    expect(existsSync(join(box.paths.home, 'web'))).toBe(false);
    const update = await box.jsonError(['task', 'update', other.id, '--summary', 'hijacked'], { env });
    expect(update).toMatchObject({ code: 'E_FORBIDDEN', error: `an agent updates only its own task (${mine.id}), not task ${other.id}` });
    const section = await box.jsonError(['task', 'section', 'set', 'Plan', '--text', 'APPROACH: theirs', '--task', other.id], { env });
    expect(section).toMatchObject({ code: 'E_FORBIDDEN', error: `an agent writes the sections of only its own task (${mine.id}), not task ${other.id}` });
    expect((await box.task(other.id)).meta).toMatchObject({ status: 'planning', summary: `work on authority/other` });
    // Reading another task is an agent's right (a reviewer reads the worker's plan).
    expect((await box.json<{ task: TaskMeta }>(['task', 'show', other.id], { env })).task.id).toBe(other.id);
  });

  it('are refused when the identity is forged, partial, or a spawn that is no longer the task\'s agent', async () => {
    const task = await box.startTask('authority/forged');
    const env = await agentEnv(task);
    const forged = await box.jsonError(['task', 'update', '--summary', 'x'], { env: { ...env, ORANGE_AGENT_SECRET: 'not-the-secret' } });
    expect(forged).toMatchObject({ code: 'E_FORBIDDEN', error: `this call's agent identity (task ${task.id}, spawn ${env.ORANGE_SPAWN_ID}) is not one Orange gave; nothing was changed` });
    // Part of an identity writes nothing; reading stays anyone's (a pipeline's headless run reads so).
    const partial = await box.jsonError(['task', 'update', task.id, '--summary', 'x'], { env: { ORANGE_SPAWN_ID: env.ORANGE_SPAWN_ID as string } });
    expect(partial.code).toBe('E_FORBIDDEN');
    expect((await box.json<{ task: TaskMeta }>(['task', 'show', task.id], { env: { ORANGE_SPAWN_ID: env.ORANGE_SPAWN_ID as string } })).task.id).toBe(task.id);
    // A respawn replaces the spawn: the old one's identity can no longer write.
    const respawned = await box.json(['task', 'cancel', task.id, '--yes']);
    expect(respawned).toMatchObject({ to: 'cancelled' });
    const stale = await box.jsonError(['task', 'update', '--summary', 'late'], { env, cwd: box.repo });
    expect(stale).toMatchObject({ code: 'E_FORBIDDEN', error: `this agent (spawn ${env.ORANGE_SPAWN_ID}) is no longer task ${task.id}'s worker; nothing was changed` });
  });
});

describe('a branch name that exists already', () => {
  it('is refused as the new name of a task\'s branch when it exists on the remote only, for an agent and a person alike', async () => {
    const task = await box.startTask('authority/rename');
    await box.git(box.repo, 'push', '-q', 'origin', 'main:refs/heads/release');
    const env = await agentEnv(task);
    const byAgent = await box.jsonError(['task', 'update', '--branch', 'release'], { env, cwd: task.workspace as string });
    expect(byAgent).toMatchObject({ code: 'E_WORKSPACE', error: 'a branch named release already exists (origin/release); pick another name' });
    const byPerson = await box.jsonError(['task', 'update', task.id, '--branch', 'release']);
    expect(byPerson.error).toBe('a branch named release already exists (origin/release); pick another name');
    // Switched to with git and adopted: refused too, and the branch of record stays.
    await box.git(task.workspace as string, 'switch', '-q', '-c', 'release', 'origin/release');
    const adopted = await box.jsonError(['task', 'update', '--branch'], { env, cwd: task.workspace as string });
    expect(adopted.error).toContain(`is on branch release, which exists already (origin/release)`);
    expect((await box.task(task.id)).meta.branch).toBe('authority/rename');
    expect(await box.git(box.origin, 'branch', '--list', 'release')).toContain('release');
  });
});

describe("a person's commands", () => {
  it('ask before a merge, and refuse without a terminal unless --yes, changing nothing', async () => {
    const task = await reviewingTask('authority/confirm');
    const refused = await box.jsonError(['task', 'merge', task.id]);
    expect(refused).toMatchObject({ code: 'E_CONFIRM', exit: 1 });
    expect(refused.error).toBe(`Merge task ${task.id} (reviewing, authority/confirm) into main and finish it needs confirmation and there is no terminal to ask; pass --yes`);
    expect((await box.task(task.id)).meta.status).toBe('reviewing');
  });

  it('take a move the workflow gives to a person with task move, and point to the command of a move that has its own', async () => {
    const task = await reviewingTask('authority/move');
    const toDone = await box.jsonError(['task', 'move', task.id, 'done', '--yes']);
    expect(toDone).toMatchObject({ code: 'E_USAGE', error: `reviewing → done has a command of its own: orange task merge ${task.id}` });
    const toStuck = await box.json<{ from: string; to: string }>(['task', 'move', task.id, 'stuck', '--yes']);
    expect(toStuck).toMatchObject({ from: 'reviewing', to: 'stuck' });
    const agentsOnly = await box.jsonError(['task', 'move', task.id, 'cancelled', '--yes']);
    expect(agentsOnly.error).toBe(`stuck → cancelled has a command of its own: orange task cancel ${task.id}`);
  });
});

describe('the workflow of a task', () => {
  it('is chosen at create (--workflow) and kept when its project changes workflow; listing sorts each by its own', async () => {
    const kept = await box.createTask(['authority/kept', 'made under default']);
    expect(kept.workflow).toBe('default');
    const chosen = await box.createTask(['authority/chosen', 'made under classic', '--workflow', 'classic']);
    expect(chosen.workflow).toBe('classic');
    await box.json(['project', 'update', 'demo', '--workflow', 'classic']);
    try {
      const fresh = await box.createTask(['authority/fresh', 'made after the change']);
      expect(fresh.workflow).toBe('classic');
      expect((await box.json<{ to: string }>(['task', 'spawn', kept.id])).to).toBe('planning');
      expect((await box.json<{ to: string }>(['task', 'spawn', fresh.id])).to).toBe('working');
      const unknown = await box.jsonError(['task', 'create', 'authority/unknown', 'x', '--workflow', 'nope']);
      expect(unknown.code).toBe('E_WORKFLOW_INVALID');
    } finally {
      await box.json(['project', 'update', 'demo', '--workflow', 'default']);
    }
  });
});
