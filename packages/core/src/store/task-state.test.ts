import { describe, expect, it } from 'vitest';
import type { TaskMeta } from '../task/task.js';
import { newTaskMeta } from './task-file.js';
import { reconcile, RENDER_MEMORY, sealedFingerprint, stateAfterRender, type TaskState } from './task-state.js';

const ID = 'AbCdEfGhIjKlMnOpQrStU';
const meta = (fields: Partial<TaskMeta> = {}): TaskMeta =>
  newTaskMeta({ id: ID, project: 'demo', branch: 'feat/x', status: 'planning', summary: 'one', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', ...fields });

/** The state after rendering each of `metas` in turn. */
function rendered(...metas: TaskMeta[]): TaskState {
  return metas.reduce<TaskState | null>((state, m) => stateAfterRender(state, m, null), null) as TaskState;
}

describe('sealedFingerprint', () => {
  it('ignores the free fields and key order, and sees every sealed field', () => {
    const a = meta();
    expect(sealedFingerprint({ ...a, summary: 'other', harness: 'codex', effort: 'high' })).toBe(sealedFingerprint(a));
    expect(sealedFingerprint(Object.fromEntries(Object.entries(a).reverse()))).toBe(sealedFingerprint(a));
    for (const [field, value] of [['status', 'working'], ['branch', 'release'], ['id', 'B'.repeat(21)], ['review_round', 1], ['worker_spawn', 'w'], ['extra', 'x']] as const) {
      expect(sealedFingerprint({ ...a, [field]: value }), field).not.toBe(sealedFingerprint(a));
    }
  });
});

describe('reconcile', () => {
  const v1 = meta();
  const v2 = meta({ status: 'working', updated_at: '2026-01-01T00:01:00.000Z' });
  const v3 = meta({ status: 'agent-review', summary: 'two', review_round: 1, updated_at: '2026-01-01T00:02:00.000Z' });
  const state = rendered(v1, v2, v3);

  it('reads the current rendering as the state', () => {
    expect(reconcile(state, v3)).toEqual({ meta: v3, tampered: [], stale: false });
  });

  it('reads an older rendering written back by an editor as stale: the state wins, nothing is tampered', () => {
    const result = reconcile(state, v1);
    expect(result).toMatchObject({ tampered: [], stale: true });
    expect(result.meta).toEqual(v3);
  });

  it('takes a free field edited in a stale copy, and only that one', () => {
    const result = reconcile(state, { ...v2, effort: 'high' });
    expect(result.meta).toEqual({ ...v3, effort: 'high' });
    // v2 said summary "one": not an edit, so the newer "two" stands.
    expect(result.meta.summary).toBe('two');
  });

  it('takes a free field edited in the current rendering', () => {
    expect(reconcile(state, { ...v3, summary: 'edited by hand' }).meta.summary).toBe('edited by hand');
  });

  it('reports every sealed field an edit changed, with both values, and keeps the values of record', () => {
    const forged = { ...v3, status: 'reviewing', branch: 'release' };
    const result = reconcile(state, forged);
    expect(result.tampered).toEqual([
      { field: 'branch', expected: 'feat/x', found: 'release' },
      { field: 'status', expected: 'agent-review', found: 'reviewing' },
    ]);
    expect(result.meta).toEqual(v3);
    expect(result.stale).toBe(false);
  });

  it('takes free fields edited beside a forged one as edits, never as tampering', () => {
    const result = reconcile(state, { ...v3, status: 'done', summary: 'edited by hand', effort: 'high' });
    expect(result.tampered).toEqual([{ field: 'status', expected: 'agent-review', found: 'done' }]);
    expect(result.meta).toEqual({ ...v3, summary: 'edited by hand', effort: 'high' });
  });

  it('reads a state that remembers no rendering: equal sealed fields are no tampering, free edits are taken', () => {
    const bare: TaskState = { v: 1, meta: v3, renders: [], rendered: null };
    expect(reconcile(bare, { ...v3, summary: 'edited by hand' })).toEqual({ meta: { ...v3, summary: 'edited by hand' }, tampered: [], stale: false });
  });

  it('sees a status line set back to an earlier status as tampering when the rest is newer', () => {
    const result = reconcile(state, { ...v3, status: 'planning' });
    expect(result.tampered.map((t) => t.field)).toEqual(['status']);
  });

  it('reports a field an edit added', () => {
    expect(reconcile(state, { ...v3, approved: true } as TaskMeta).tampered).toEqual([{ field: 'approved', expected: null, found: true }]);
  });

  it(`remembers the last ${RENDER_MEMORY} renderings`, () => {
    const many = Array.from({ length: RENDER_MEMORY + 1 }, (_, i) => meta({ crash_count: i }));
    const long = rendered(...many);
    expect(reconcile(long, many[1] as TaskMeta).stale).toBe(true);
    expect(reconcile(long, many[0] as TaskMeta).tampered.map((t) => t.field)).toEqual(['crash_count']);
  });

  it('remembers a rendering once however often it is rendered again, so repeats push no older one out', () => {
    const many = Array.from({ length: RENDER_MEMORY }, (_, i) => meta({ crash_count: i }));
    const last = many[RENDER_MEMORY - 1] as TaskMeta;
    // Free fields are not part of a rendering's fingerprint: re-rendering after an edit to them is a repeat.
    const repeats = Array.from({ length: RENDER_MEMORY }, (_, i) => ({ ...last, summary: `edit ${i}` }));
    const long = rendered(...many, ...repeats);
    expect(long.renders).toHaveLength(RENDER_MEMORY);
    expect(reconcile(long, many[0] as TaskMeta)).toMatchObject({ tampered: [], stale: true });
  });
});
