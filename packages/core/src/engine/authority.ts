import type { Actor, Transition, Workflow } from '../workflow/index.js';

const OWNER: Readonly<Record<Actor, string>> = { agent: "the task's agent's", person: "a person's", orange: "Orange's own" };

/**
 * Why `actor` may not take `from → to`, naming who may and the command that takes it: `done is a
 * person's move: orange task merge V1St…`. `candidates` are the transitions of the pair.
 */
export function notYourMove(workflow: Workflow, candidates: readonly Transition[], actor: Actor, id: string): string {
  const from = candidates[0]?.from ?? '';
  const to = candidates[0]?.to ?? '';
  const owners = [...new Set(candidates.flatMap((t) => t.by))];
  const whose = owners.filter((a) => a !== 'orange').map((a) => OWNER[a]);
  const who = whose.length > 0 ? whose.join(' or ') : OWNER.orange;
  const how = owners.includes('person') ? personCommand(workflow, from, to, id) : owners.includes('agent') ? `the task's own agent asks for it: orange task update --status ${to}` : 'exit rules, hooks or the pipeline driver take it';
  return `${to} is ${who} move, not ${actor === 'orange' ? "Orange's" : `${OWNER[actor].replace(/'s$/, '')}'s`} (${how})`;
}

/** The person's command that takes `from → to`. */
export function personCommand(workflow: Workflow, from: string, to: string, id: string): string {
  if (to === 'done') return `orange task merge ${id}`;
  if (['cancelled', 'stopped'].includes(to) || (to === 'failed' && ['stopped', 'completed'].includes(from))) return `orange task cancel ${id}`;
  if (from === 'reviewing' && to === 'working') return `orange task request-changes ${id}`;
  if (from === workflow.initial && to === workflow.start) return `orange task spawn ${id}`;
  if (from === 'awaiting_clarification') return `orange task clarify ${id}`;
  if (from === 'stopped') return `orange task resume ${id}`;
  return `orange task move ${id} ${to}`;
}
