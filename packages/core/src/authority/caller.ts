import { OrangeError } from '../errors/index.js';
import { TASK_ID_VARIABLE } from '../process/index.js';
import { projectNameProblem, type TaskStore } from '../store/index.js';
import { TASK_ID_PATTERN, type AgentRole } from '../task/index.js';

/** The variable an agent's secret travels in (the spawn id in `ORANGE_SPAWN_ID`, its task in `ORANGE_TASK_ID` and `ORANGE_PROJECT`). */
export const AGENT_SECRET_VARIABLE = 'ORANGE_AGENT_SECRET';
const SPAWN_VARIABLE = 'ORANGE_SPAWN_ID';
const PROJECT_VARIABLE = 'ORANGE_PROJECT';

/** Who makes a call: a person (no agent identity), or a spawned agent of one task. */
export type Caller =
  | { readonly kind: 'person' }
  | {
      readonly kind: 'agent';
      readonly task: { readonly project: string; readonly id: string };
      readonly role: AgentRole;
      readonly spawn: string;
      /** True while this spawn is the task's agent of its role (not replaced, its exit not handled). */
      readonly current: boolean;
    };

/** The identity a call's environment claims: none, all of one, or only part of one. */
export type IdentityClaim = null | 'partial' | { readonly project: string; readonly id: string; readonly spawn: string; readonly secret: string };

/** Reads the identity claim of an environment (an agent's call carries every part of it). */
export function identityClaim(env: NodeJS.ProcessEnv): IdentityClaim {
  const id = env[TASK_ID_VARIABLE];
  const project = env[PROJECT_VARIABLE];
  const spawn = env[SPAWN_VARIABLE];
  const secret = env[AGENT_SECRET_VARIABLE];
  if (!spawn && !secret) return null;
  if (!id || !project || !spawn || !secret) return 'partial';
  return { project, id, spawn, secret };
}

/**
 * Who a call comes from, from its environment: a person when it carries no agent identity, else the
 * agent whose spawn id and secret it shows, checked against the record Orange kept when it started
 * that agent. An identity that is only partly there, or that Orange never gave, is refused
 * (E_FORBIDDEN) before anything is read or written. A same-user process can unset its environment
 * and pass for a person: only an isolating runtime (a container) closes that (docs/data.md).
 */
export async function callerOf(env: NodeJS.ProcessEnv, store: TaskStore): Promise<Caller> {
  const claim = identityClaim(env);
  if (claim === null) return { kind: 'person' };
  if (claim === 'partial') {
    throw new OrangeError('E_FORBIDDEN', `this call carries part of an agent's identity (${TASK_ID_VARIABLE}, ${PROJECT_VARIABLE}, ${SPAWN_VARIABLE}, ${AGENT_SECRET_VARIABLE}) but not all of it; nothing was changed`);
  }
  // Names that are no task's (a path in disguise) are nobody's identity: never looked up.
  const named = projectNameProblem(claim.project) === null && TASK_ID_PATTERN.test(claim.id);
  const role = named ? await store.identities.verify(claim.project, claim.id, claim.spawn, claim.secret).catch(() => null) : null;
  if (role === null) {
    throw new OrangeError('E_FORBIDDEN', `this call's agent identity (task ${claim.id}, spawn ${claim.spawn}) is not one Orange gave; nothing was changed`);
  }
  const meta = await store.read(claim.project, claim.id).then((t) => t.meta, () => null);
  const current = meta !== null && (role === 'worker' ? meta.worker_spawn : meta.reviewer_spawn) === claim.spawn;
  return { kind: 'agent', task: { project: claim.project, id: claim.id }, role, spawn: claim.spawn, current };
}

/**
 * Refuses (E_FORBIDDEN) an agent's write to a task that is not its own, or any write from a spawn
 * that is no longer its task's agent; a person may write any task.
 */
export function checkAgentWrite(caller: Caller, task: { readonly project: string; readonly id: string }, what: string, options: { readonly current?: boolean } = {}): void {
  if (caller.kind === 'person') return;
  if (caller.task.project !== task.project || caller.task.id !== task.id) {
    throw new OrangeError('E_FORBIDDEN', `an agent ${what} only its own task (${caller.task.id}), not task ${task.id}`);
  }
  // An exit report may come once its spawn is no longer the task's agent: only the task must be its own.
  if (options.current !== false && !caller.current) {
    throw new OrangeError('E_FORBIDDEN', `this agent (spawn ${caller.spawn}) is no longer task ${task.id}'s ${caller.role}; nothing was changed`);
  }
}
