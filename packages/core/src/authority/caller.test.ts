import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { callerOf, checkAgentWrite, identityClaim } from './caller.js';

let box: Sandbox | undefined;
afterEach(async () => box?.cleanup());

/** What a spawned agent of `ref` carries in its environment. */
const envOf = (ref: { project: string; id: string }, spawn: string, secret: string) => ({ ORANGE_TASK_ID: ref.id, ORANGE_PROJECT: ref.project, ORANGE_SPAWN_ID: spawn, ORANGE_AGENT_SECRET: secret });

describe('who a call comes from', () => {
  it('is a person when the environment carries no agent identity', async () => {
    box = await sandbox();
    expect(await callerOf({ PATH: '/usr/bin' }, box.orange.store)).toEqual({ kind: 'person' });
    expect(identityClaim({ ORANGE_TASK_ID: 'x' })).toBeNull();
  });

  it("is the task's agent when the spawn id comes with the secret Orange gave it, and only the hash is kept", async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { meta: { worker_spawn: 'spawn00001' } });
    const secret = await box.orange.store.identities.issue(ref.project, ref.id, 'worker', 'spawn00001');
    expect(await callerOf(envOf(ref, 'spawn00001', secret), box.orange.store)).toEqual({ kind: 'agent', task: ref, role: 'worker', spawn: 'spawn00001', current: true });
    const kept = await readFile(box.orange.paths.agentIdentitiesFile(ref.project, ref.id), 'utf8');
    expect(kept).not.toContain(secret);
    expect(JSON.parse(kept).spawn00001).toMatchObject({ role: 'worker', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('refuses a secret Orange never gave, a spawn it never started and an identity only partly there, before anything else', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { meta: { worker_spawn: 'spawn00001' } });
    await box.orange.store.identities.issue(ref.project, ref.id, 'worker', 'spawn00001');
    await expect(callerOf(envOf(ref, 'spawn00001', 'guessed'), box.orange.store)).rejects.toMatchObject({ code: 'E_FORBIDDEN', message: expect.stringContaining('is not one Orange gave') });
    await expect(callerOf(envOf(ref, 'spawn00002', 'guessed'), box.orange.store)).rejects.toMatchObject({ code: 'E_FORBIDDEN' });
    await expect(callerOf({ ORANGE_SPAWN_ID: 'spawn00001' }, box.orange.store)).rejects.toMatchObject({ code: 'E_FORBIDDEN', message: expect.stringContaining('part of an agent') });
  });

  it('lets an agent write only its own task, and only while its spawn is the task\'s agent', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { meta: { worker_spawn: 'spawn00002' } });
    const other = await taskIn(box, 'working');
    const secret = await box.orange.store.identities.issue(ref.project, ref.id, 'worker', 'spawn00001');
    const stale = await callerOf(envOf(ref, 'spawn00001', secret), box.orange.store);
    expect(stale).toMatchObject({ kind: 'agent', current: false });
    expect(() => checkAgentWrite(stale, ref, 'updates')).toThrow(/no longer task .*'s worker/);
    // An exit report of that spawn still names its own task: that much it may do.
    expect(() => checkAgentWrite(stale, ref, 'reports the exit of', { current: false })).not.toThrow();
    expect(() => checkAgentWrite(stale, other, 'updates', { current: false })).toThrow(`an agent updates only its own task (${ref.id}), not task ${other.id}`);
    expect(() => checkAgentWrite({ kind: 'person' }, other, 'updates')).not.toThrow();
  });
});
