/**
 * history.jsonl is the ledger: TASK.md's status is obeyed only while it agrees with the last
 * status the ledger recorded, so an agent (or a person) editing the `status:` line by hand
 * cannot skip a gate.
 */
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesOf, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { TaskRef } from '../plugin/index.js';
import { OrangeError } from '../errors/errors.js';

const PLAN = '## Plan\n\nAPPROACH: split the parser\nTOUCHING: parser.ts\n';
const PLAN_AND_HANDOFF = `${PLAN}\n## Handoff\n\nDONE: parser split\n`;

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => box?.cleanup());

/** Rewrites the `status:` line of TASK.md, as a hand edit would, leaving everything else alone. */
async function editStatusLine(ref: TaskRef, from: string, to: string): Promise<void> {
  const file = box.orange.paths.taskFile(ref.project, ref.id);
  const text = await readFile(file, 'utf8');
  const edited = text.replace(`\nstatus: ${from}\n`, `\nstatus: ${to}\n`);
  expect(edited).not.toBe(text);
  await writeFile(file, edited);
}

async function tamperedError(ref: TaskRef): Promise<OrangeError> {
  const error = await box.orange.engine.readVerified(ref).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OrangeError);
  return error as OrangeError;
}

describe('a writer between its status write and its ledger entry', () => {
  it('is waited for by a reader without the lock, which then reads the new status; under the lock a mismatch is refused at once', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN });
    const { store, engine } = box.orange;
    let written!: () => void;
    const statusWritten = new Promise<void>((resolve) => (written = resolve));
    let finish!: () => void;
    const ledgerMayFollow = new Promise<void>((resolve) => (finish = resolve));
    // Another writer (another process, as far as the files tell): it holds the lock across both writes.
    const writer = store.withTaskLock(ref.project, ref.id, async () => {
      await store.update(ref.project, ref.id, { status: 'working' });
      written();
      await ledgerMayFollow;
      await store.appendHistory(ref.project, ref.id, { type: 'status.changed', from: 'planning', to: 'working', cause: 'request' });
    });
    await statusWritten;
    const read = engine.readVerified(ref);
    const early = await Promise.race([read.then(() => 'read'), new Promise((r) => setTimeout(r, 200, 'waiting'))]);
    expect(early, 'the reader waits for the lock instead of calling the half-written move tampering').toBe('waiting');
    finish();
    await writer;
    expect((await read).meta.status).toBe('working');

    // A mismatch found by the lock's own holder is what a hand edit left: refused, no wait for itself.
    await editStatusLine(ref, 'working', 'reviewing');
    await expect(store.withTaskLock(ref.project, ref.id, () => engine.readVerified(ref))).rejects.toMatchObject({ code: 'E_TAMPERED' });
  });
});

describe('a hand-edited status line', () => {
  it('is reported by readVerified as E_TAMPERED, naming both statuses and the repair command', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN_AND_HANDOFF });
    await editStatusLine(ref, 'planning', 'working');
    const error = await tamperedError(ref);
    expect(error.code).toBe('E_TAMPERED');
    expect(error.message).toContain('"working"');
    expect(error.message).toContain('"planning"');
    expect(error.message).toContain(`orange task repair ${ref.id}`);
    expect(error.details).toEqual({ fields: ["status"], file: "working", ledger: "planning" });
  });

  it('is judged against the last recorded change, not the creation status', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN });
    await box.orange.engine.transition(ref, 'working');
    await editStatusLine(ref, 'working', 'planning');
    const error = await tamperedError(ref);
    expect(error).toMatchObject({ code: 'E_TAMPERED', details: { file: 'planning', ledger: 'working' } });
  });

  it('refuses a transition that would be legal from the forged status, changing nothing and running no action', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN_AND_HANDOFF });
    await editStatusLine(ref, 'planning', 'working');
    const before = await filesOf(box, ref);
    box.calls.length = 0;
    // working → agent-review has its Handoff: only the forgery stands in the way.
    await expect(box.orange.engine.transition(ref, 'agent-review')).rejects.toMatchObject({ code: 'E_TAMPERED' });
    expect(await filesOf(box, ref)).toEqual(before);
    expect(box.calls).toEqual([]);
  });

  it('refuses even the transition the ledger status allows, until repaired', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN_AND_HANDOFF });
    await editStatusLine(ref, 'planning', 'reviewing');
    const before = await filesOf(box, ref);
    await expect(box.orange.engine.transition(ref, 'working')).rejects.toMatchObject({ code: 'E_TAMPERED' });
    await expect(box.orange.engine.edit(ref, { summary: 'renamed' })).rejects.toMatchObject({ code: 'E_TAMPERED' });
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it('repair restores the ledger status in TASK.md, keeps the body and records status.repaired', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN_AND_HANDOFF });
    await editStatusLine(ref, 'planning', 'working');
    const historyBefore = await box.orange.store.history(ref.project, ref.id);

    const result = await box.orange.engine.repair(ref);
    expect(result).toMatchObject({ from: 'working', to: 'planning', repaired: true });

    const task = await box.orange.store.read(ref.project, ref.id);
    expect(task.meta.status).toBe('planning');
    expect(task.body).toBe(PLAN_AND_HANDOFF);
    const history = await box.orange.store.history(ref.project, ref.id);
    expect(history.slice(0, historyBefore.length)).toEqual(historyBefore);
    expect(history.slice(historyBefore.length)).toEqual([expect.objectContaining({ type: 'status.repaired', from: 'working', to: 'planning' })]);
    // A repair is not a status change: the ledger's status of record is unchanged.
    expect(await box.orange.store.ledgerStatus(ref.project, ref.id)).toBe('planning');
    await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { status: 'planning' } });
  });

  it('after repair, the workflow applies from the real status again', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN_AND_HANDOFF });
    await editStatusLine(ref, 'planning', 'working');
    await box.orange.engine.repair(ref);
    await expect(box.orange.engine.transition(ref, 'agent-review')).rejects.toMatchObject({ code: 'E_ILLEGAL_TRANSITION' });
    await expect(box.orange.engine.transition(ref, 'working')).resolves.toMatchObject({ from: 'planning', to: 'working', changed: true });
  });

  it('repair of a task whose state.json cannot be read sets it aside and rebuilds the task from TASK.md and the ledger', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN_AND_HANDOFF });
    const stateFile = box.orange.paths.taskStateFile(ref.project, ref.id);
    await writeFile(stateFile, '{broken');
    const refused = await box.orange.store.read(ref.project, ref.id).catch((error: unknown) => error as OrangeError);
    // The way out is named with the task's id, so it can be pasted.
    expect(refused).toMatchObject({ code: 'E_UNREADABLE', message: `task ${ref.id}: state.json is not valid JSON (edited by hand?); run: orange task repair ${ref.id}` });
    await box.orange.engine.repair(ref);
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(task.meta.status).toBe('planning');
    expect(task.body).toBe(PLAN_AND_HANDOFF);
    await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { status: 'planning' } });
    // Kept to look at, beside the task's files.
    const kept = (await readdir(box.orange.paths.taskDir(ref.project, ref.id))).filter((name) => name.startsWith('state.json.unreadable-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(box.orange.paths.taskDir(ref.project, ref.id), kept[0]!), 'utf8')).toBe('{broken');
    // And the workflow goes on from there.
    await expect(box.orange.engine.transition(ref, 'working')).resolves.toMatchObject({ from: 'planning', to: 'working' });
  });

  it('repair of an untouched task changes nothing', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN });
    const before = await filesOf(box, ref);
    await expect(box.orange.engine.repair(ref)).resolves.toMatchObject({ from: 'planning', to: 'planning', repaired: false });
    expect(await filesOf(box, ref)).toEqual(before);
  });
});

describe('edits that are not tampering', () => {
  it('an edited body (an agent writing its sections) reads as verified', async () => {
    const ref = await taskIn(box, 'planning');
    const file = box.orange.paths.taskFile(ref.project, ref.id);
    await writeFile(file, `${await readFile(file, 'utf8')}\n${PLAN}`);
    await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { status: 'planning' } });
  });
});

describe('a torn ledger', () => {
  it('a torn last history line (a writer killed mid-append) does not hide the next status change', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN });
    await appendFile(box.orange.paths.historyFile(ref.project, ref.id), '{"type":"hook.fai');
    await box.orange.engine.transition(ref, 'working');
    expect(await box.orange.store.ledgerStatus(ref.project, ref.id)).toBe('working');
    await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { status: 'working' } });
  });
});

describe('history.jsonl on a terminal', () => {
  it('is written without raw control characters, and reads back the exact strings', async () => {
    const ref = await taskIn(box, 'planning');
    const reason = 'evil \u001b]0;title\u0007 \u001b[2J \u009b31m \u202e';
    await box.orange.store.appendHistory(ref.project, ref.id, { type: 'note', reason });
    const bytes = await readFile(box.orange.paths.historyFile(ref.project, ref.id), 'utf8');
    // eslint-disable-next-line no-control-regex
    expect(bytes).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect((await box.orange.store.history(ref.project, ref.id)).at(-1)).toMatchObject({ type: 'note', reason });
  });
});
