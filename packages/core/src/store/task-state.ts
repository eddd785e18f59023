import { createHash } from 'node:crypto';
import type { TaskMeta } from '../task/index.js';

/**
 * Front matter fields a person or an agent may change by editing TASK.md. Every other field is
 * the engine's (sealed): its value of record lives in the task's state file, and a TASK.md that
 * shows another value is either a stale copy (ignored) or tampering (refused until repaired).
 */
export const FREE_FIELDS = ['summary', 'harness', 'review_harness', 'effort', 'review_effort'] as const;
export type FreeField = (typeof FREE_FIELDS)[number];

const FREE = new Set<string>(FREE_FIELDS);

/** How many past renderings of the front matter are remembered to recognise a stale copy. */
export const RENDER_MEMORY = 32;

/** One front matter the engine rendered into TASK.md: its sealed fields' fingerprint, and its free fields. */
export interface RenderMark {
  readonly h: string;
  readonly free: Readonly<Record<FreeField, unknown>>;
}

/** A file's identity: a change of any of these means someone wrote it. */
export interface FileIdentity {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/** `state.json`: the engine's fields of record for one task, and what it rendered lately. */
export interface TaskState {
  readonly v: 1;
  readonly meta: TaskMeta;
  readonly renders: readonly RenderMark[];
  /** TASK.md as the engine last wrote it: while it is unchanged, its front matter is the state's. */
  readonly rendered: FileIdentity | null;
}

/** A sealed field whose TASK.md value is not the engine's. */
export interface FieldMismatch {
  readonly field: string;
  /** The value of record (state file, or the ledger for `status`). */
  readonly expected: unknown;
  /** What TASK.md says. */
  readonly found: unknown;
}

function canonical(value: Record<string, unknown>): string {
  return JSON.stringify(Object.keys(value).sort().map((k) => [k, value[k] ?? null]));
}

/** The fingerprint of a front matter's sealed fields (every field but the free ones). */
export function sealedFingerprint(meta: Readonly<Record<string, unknown>>): string {
  const sealed: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) if (!FREE.has(k)) sealed[k] = v;
  return createHash('sha1').update(canonical(sealed)).digest('base64url');
}

function freeOf(meta: Readonly<Record<string, unknown>>): Record<FreeField, unknown> {
  return Object.fromEntries(FREE_FIELDS.map((k) => [k, meta[k] ?? null])) as Record<FreeField, unknown>;
}

/** The state after rendering `meta` into TASK.md. */
export function stateAfterRender(previous: TaskState | null, meta: TaskMeta, rendered: FileIdentity | null): TaskState {
  const mark: RenderMark = { h: sealedFingerprint(meta), free: freeOf(meta) };
  const renders = [...(previous?.renders ?? []).filter((r) => r.h !== mark.h), mark].slice(-RENDER_MEMORY);
  return { v: 1, meta, renders, rendered };
}

/** What TASK.md's front matter means against the state of record. */
export interface Reconciled {
  /** The task's fields: the state's, with the free fields a person or agent edited in TASK.md. */
  readonly meta: TaskMeta;
  /** Sealed fields TASK.md shows with other values than the state's, when it is no copy the engine wrote. */
  readonly tampered: readonly FieldMismatch[];
  /** TASK.md's front matter is an older rendering (an editor wrote back what it read before a change). */
  readonly stale: boolean;
}

/**
 * Reads TASK.md's front matter against the state of record. An older rendering the engine wrote
 * is not tampering: an agent that read TASK.md before a status change and saved after it writes
 * the old front matter back. Its free fields count as edits only where they differ from that
 * rendering. Anything else that differs in a sealed field is tampering. Pure.
 */
export function reconcile(state: TaskState, file: TaskMeta): Reconciled {
  const fields = file as Record<string, unknown>;
  const h = sealedFingerprint(fields);
  const current = state.renders[state.renders.length - 1];
  const base = current?.h === h ? current : [...state.renders].reverse().find((r) => r.h === h);
  const meta = { ...state.meta } as Record<string, unknown>;
  if (base) {
    for (const k of FREE_FIELDS) if (fields[k] !== base.free[k]) meta[k] = fields[k];
    return { meta: meta as TaskMeta, tampered: [], stale: base !== current };
  }
  const record = state.meta as Record<string, unknown>;
  const tampered: FieldMismatch[] = [];
  for (const k of new Set([...Object.keys(record), ...Object.keys(fields)])) {
    if (FREE.has(k)) continue;
    if ((record[k] ?? null) !== (fields[k] ?? null)) tampered.push({ field: k, expected: record[k] ?? null, found: fields[k] ?? null });
  }
  // With the sealed fields all equal, only free fields changed: edits, taken as written.
  for (const k of FREE_FIELDS) if (fields[k] !== record[k]) meta[k] = fields[k];
  return { meta: meta as TaskMeta, tampered, stale: false };
}
