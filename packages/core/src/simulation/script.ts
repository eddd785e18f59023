import { isAbsolute } from 'node:path';
import { OrangeError } from '../errors/index.js';
import { workflowActions } from '../plugin/index.js';
import type { AgentRole } from '../task/index.js';
import type { WorkflowInput } from '../workflow/index.js';

/** One event of a simulation script. */
export type ScriptEvent =
  | { readonly kind: 'create'; readonly status: string | null }
  | { readonly kind: 'spawn' }
  | { readonly kind: 'merge' }
  | { readonly kind: 'request'; readonly status: string }
  | { readonly kind: 'move'; readonly status: string }
  | { readonly kind: 'file'; readonly path: string; readonly text: string }
  | { readonly kind: 'exit'; readonly role: AgentRole }
  | { readonly kind: 'respawn' }
  | { readonly kind: 'review'; readonly verdict: 'pass' | 'fail' }
  | { readonly kind: 'gate'; readonly gate: string; readonly pass: boolean; readonly reason: string | null }
  | { readonly kind: 'set'; readonly field: string; readonly value: string | number | boolean | null }
  | { readonly kind: 'fail'; readonly action: string; readonly message: string | null }
  | { readonly kind: 'veto'; readonly reason: string };

/** A script event and the text it was parsed from. */
export interface ScriptStep {
  readonly text: string;
  readonly event: ScriptEvent;
}

/** The commands a script may use, for help and errors. */
export const SCRIPT_COMMANDS = [
  'create [STATUS]',
  'spawn',
  'request STATUS',
  'move STATUS',
  'merge',
  'exit worker|reviewer',
  'respawn',
  'review PASS|FAIL',
  'gate NAME pass|fail [REASON]',
  'set FIELD VALUE',
  'fail ACTION [MESSAGE]',
  'veto [REASON]',
  'file PATH [TEXT]',
] as const;

/** Fields the engine owns; a script may not set them (they are what the simulation shows). */
const ENGINE_FIELDS = new Set(['id', 'project', 'status', 'created_at', 'updated_at', 'worker_spawn', 'reviewer_spawn', 'attention']);

/**
 * Parses a script: events separated by `;` or new lines, words by spaces; a `#` at the start of an
 * event or after a space comments out the rest of that event (not the events after it on the line).
 * A bad event is refused naming its position and the commands there are.
 */
export function parseScript(script: string): ScriptStep[] {
  const parts = script
    .split(/[;\n]/)
    .map((p) => p.replace(/(^|\s)#.*$/, '').trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw usage('the script is empty');
  return parts.map((text, i) => ({ text, event: parseEvent(text, i + 1) }));
}

/** Actions the engine may run outside a workflow's transitions, and the core's merge. */
const ALWAYS_ACTIONS = ['acquire_workspace', 'spawn_agent', 'spawn_reviewer', 'merge'];

/**
 * Refuses a script that names what `workflow` does not have: a status, a gate, an action. A typo
 * would otherwise pass silently (a gate never asked is never failed). Pure.
 */
export function checkScript(steps: readonly ScriptStep[], workflow: WorkflowInput): void {
  const statuses = Object.keys(workflow.states);
  const gates = [...new Set(workflow.transitions.flatMap((t) => (t.gate ? [t.gate] : [])))];
  const actions = [...new Set([...workflowActions(workflow), ...ALWAYS_ACTIONS])];
  steps.forEach(({ text, event }, i) => {
    const bad = (why: string) => usage(`script event ${i + 1} "${text.slice(0, 60)}": ${why}`);
    const status = event.kind === 'request' || event.kind === 'move' ? event.status : event.kind === 'create' ? event.status : null;
    if (status !== null && !statuses.includes(status)) throw bad(`workflow ${workflow.name} has no status ${status} (statuses: ${statuses.join(', ')})`);
    if (event.kind === 'gate' && !gates.includes(event.gate)) throw bad(`no transition of workflow ${workflow.name} has the gate ${event.gate} (gates: ${gates.join(', ') || 'none'})`);
    if (event.kind === 'fail' && !actions.includes(event.action)) throw bad(`workflow ${workflow.name} runs no action ${event.action} (actions: ${actions.join(', ')})`);
  });
}

function parseEvent(text: string, n: number): ScriptEvent {
  const [command = '', ...words] = text.split(/\s+/);
  const rest = words.join(' ');
  const bad = (why: string) => usage(`script event ${n} "${text.slice(0, 60)}": ${why}`);
  const one = (what: string): string => {
    if (words.length !== 1) throw bad(`needs ${what}`);
    return words[0] as string;
  };
  switch (command.toLowerCase()) {
    case 'create':
      if (words.length > 1) throw bad('takes at most a STATUS');
      return { kind: 'create', status: words[0] ?? null };
    case 'spawn':
    case 'respawn':
    case 'merge':
      if (words.length) throw bad('takes no arguments');
      return { kind: command.toLowerCase() as 'spawn' | 'respawn' | 'merge' };
    case 'request':
    case 'move':
      return { kind: command.toLowerCase() as 'request' | 'move', status: one('a STATUS') };
    case 'exit': {
      const role = one('a role: worker or reviewer');
      if (role !== 'worker' && role !== 'reviewer') throw bad('the role is worker or reviewer');
      return { kind: 'exit', role };
    }
    case 'review': {
      const verdict = one('PASS or FAIL').toLowerCase();
      if (verdict !== 'pass' && verdict !== 'fail') throw bad('the verdict is PASS or FAIL');
      return { kind: 'review', verdict };
    }
    case 'gate': {
      const [gate, answer, ...reason] = words;
      if (!gate || (answer !== 'pass' && answer !== 'fail')) throw bad('is gate NAME pass|fail [REASON]');
      return { kind: 'gate', gate, pass: answer === 'pass', reason: reason.length ? reason.join(' ') : null };
    }
    case 'set': {
      const [field, ...value] = words;
      if (!field || value.length === 0) throw bad('is set FIELD VALUE');
      if (ENGINE_FIELDS.has(field)) throw bad(`${field} belongs to the engine; drive it with events`);
      return { kind: 'set', field, value: literal(value.join(' ')) };
    }
    case 'fail': {
      const [action, ...message] = words;
      if (!action) throw bad('is fail ACTION [MESSAGE]');
      return { kind: 'fail', action, message: message.length ? message.join(' ') : null };
    }
    case 'veto':
      return { kind: 'veto', reason: rest || 'vetoed by the script' };
    case 'file': {
      const [path, ...text] = words;
      if (!path) throw bad('is file PATH [TEXT]');
      if (isAbsolute(path) || path.split('/').includes('..')) throw bad('the PATH is relative to the worktree, without ..');
      return { kind: 'file', path, text: text.length ? `${text.join(' ')}\n` : '' };
    }
    default:
      throw bad(`unknown event (events: ${SCRIPT_COMMANDS.join('; ')})`);
  }
}

/** A value as a guard would compare it: a number, true/false, null, or the text. */
function literal(text: string): string | number | boolean | null {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null') return null;
  return text.replace(/^(["'])(.*)\1$/, '$2');
}

function usage(message: string): OrangeError {
  return new OrangeError('E_USAGE', message);
}
