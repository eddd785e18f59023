import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { OrangePlugin, WorkspaceProvider } from '../plugin/index.js';
import type { AgentRole, Task } from '../task/index.js';

let box: Sandbox;
afterEach(async () => box?.cleanup());

/**
 * A workflow whose prompts say which template was picked. The order of the states matters: the
 * fallback for a role takes the first state of that role with a prompt, and `resume` (a worker
 * state with only a respawn prompt) comes before `working` so that a first match without a prompt
 * is passed over. The reviewer's prompt has a guard, so that with `review_round: 0` no state has a
 * prompt for the reviewer at all.
 */
const prompting = {
  name: 'prompting',
  initial: 'pending',
  start: 'working',
  states: {
    pending: {},
    resume: { agent: 'worker' as const, respawnPrompt: 'resume' },
    working: { agent: 'worker' as const, prompt: 'work', respawnPrompt: 'work-again' },
    review: { agent: 'reviewer' as const, prompt: [{ guard: 'review_round > 0', prompt: 'review' }] },
    triage: { prompt: 'triage' },
    done: { terminal: true },
  },
  transitions: [
    { from: 'pending', to: 'working', by: ['person' as const, 'orange' as const] },
    { from: 'working', to: 'review', by: ['agent' as const, 'orange' as const] },
    { from: 'review', to: 'done', by: ['person' as const] },
  ],
  exit: {
    pending: { otherwise: 'mark' as const },
    resume: { otherwise: 'mark' as const },
    working: { otherwise: 'mark' as const },
    review: { otherwise: 'mark' as const },
    triage: { otherwise: 'mark' as const },
  },
  create: { pending: { hooks: [] } },
  prompts: {
    work: 'Work on {summary} from {base} in {project}',
    'work-again': 'Again: {summary}',
    resume: 'Resume in {status}',
    review: 'Review {branch}',
    triage: 'Triage {status}',
  },
};

/** A workspaces provider that only answers what a test gives it. */
function workspaces(extra: Partial<WorkspaceProvider>): OrangePlugin {
  const provider: WorkspaceProvider = { name: 'fake-workspaces', init: async () => [], list: async () => [], gc: async () => ({ freed: [] }), ...extra };
  return { name: 'fake-workspaces', apply: (orange) => orange.provide('workspaces', provider) };
}

async function promptFor(status: string, role: AgentRole, respawn: boolean, reviewRound = 1): Promise<string> {
  const ref = await taskIn(box, status, { meta: { workflow: 'prompting', review_round: reviewRound } });
  const task = await box.orange.store.read(ref.project, ref.id);
  return box.orange.engine.prompt(box.orange.workflow('prompting'), task, role, respawn);
}

describe('the prompt of an agent spawned into a status', () => {
  it("renders the state's own prompt for its agent, with the task's fields and {base} the project's default branch", async () => {
    box = await sandbox({ workflow: prompting });
    expect(await promptFor('working', 'worker', false)).toBe('Work on a task in working from main in demo');
  });

  it('takes the respawn prompt for a respawn, and each of the two when the state has only the other', async () => {
    box = await sandbox({ workflow: prompting });
    expect(await promptFor('working', 'worker', true)).toBe('Again: a task in working');
    // A state with only a respawn prompt gives it to a first spawn, and one with only a prompt to a respawn.
    expect(await promptFor('resume', 'worker', false)).toBe('Resume in resume');
    const ref = await taskIn(box, 'review', { meta: { workflow: 'prompting', review_round: 1 } });
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(await box.orange.engine.prompt(box.orange.workflow('prompting'), task, 'reviewer', true)).toBe(`Review ${task.meta.branch}`);
  });

  it('gives the prompt of a state with no agent to any role', async () => {
    box = await sandbox({ workflow: prompting });
    expect(await promptFor('triage', 'worker', false)).toBe('Triage triage');
    expect(await promptFor('triage', 'reviewer', true)).toBe('Triage triage');
  });

  it("gives a role the state is not its own the first prompt of that role's states, passing over a state with none", async () => {
    box = await sandbox({ workflow: prompting });
    // A reviewer spawned while the worker is responsible gets the review prompt, not the work one.
    const ref = await taskIn(box, 'working', { meta: { workflow: 'prompting', review_round: 1 } });
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(await box.orange.engine.prompt(box.orange.workflow('prompting'), task, 'reviewer', false)).toBe(`Review ${task.meta.branch}`);
    // A worker during review: `resume` has no first-spawn prompt, so `working` gives it.
    expect(await promptFor('review', 'worker', false)).toBe('Work on a task in review from main in demo');
    // Respawned, `resume` is the first worker state with a prompt for it.
    expect(await promptFor('review', 'worker', true)).toBe('Resume in review');
  });

  it('falls back to the role\'s states for a status the workflow does not have', async () => {
    box = await sandbox({ workflow: prompting });
    // E.g. a status renamed in the config while a task was in it.
    expect(await promptFor('vanished', 'worker', false)).toBe('Work on a task in vanished from main in demo');
    expect(await promptFor('vanished', 'worker', true)).toBe('Resume in vanished');
  });

  it('gives the generic prompt when no state has a prompt for the role', async () => {
    box = await sandbox({ workflow: prompting });
    const ref = await taskIn(box, 'working', { meta: { workflow: 'prompting', review_round: 0 } });
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(await box.orange.engine.prompt(box.orange.workflow('prompting'), task, 'reviewer', false)).toBe(
      `# Task: a task in working\n\nProject: demo\nBranch: ${task.meta.branch}\nStatus: working\n\nRead TASK.md and continue.\n`,
    );
  });

  it('passes the rendered text through the prompt hook, which sees the task, the role and whether it is a respawn', async () => {
    const signer: OrangePlugin = {
      name: 'signer',
      apply: (orange) => orange.hooks.prompt.tap('signer', (text, event) => `${text}\n-- ${event.role} respawn=${event.respawn} ${event.task.meta.status}`),
    };
    box = await sandbox({ workflow: prompting }, [signer]);
    expect(await promptFor('working', 'worker', true)).toBe('Again: a task in working\n-- worker respawn=true working');
    expect(await promptFor('triage', 'reviewer', false)).toBe('Triage triage\n-- reviewer respawn=false triage');
  });
});

describe('{base} in a prompt', () => {
  it("is the workspaces provider's base ref when it gives one", async () => {
    box = await sandbox({ workflow: prompting }, [workspaces({ baseRef: async () => 'origin/trunk' })]);
    expect(await promptFor('working', 'worker', false)).toBe('Work on a task in working from origin/trunk in demo');
  });

  it("is the project's default branch when the provider cannot say, or has no baseRef", async () => {
    box = await sandbox({ workflow: prompting }, [
      workspaces({
        baseRef: async () => {
          throw new Error('no remote and no main');
        },
      }),
    ]);
    expect(await promptFor('working', 'worker', false)).toBe('Work on a task in working from main in demo');
    await box.cleanup();
    box = await sandbox({ workflow: prompting }, [workspaces({})]);
    expect(await promptFor('working', 'worker', false)).toBe('Work on a task in working from main in demo');
  });

  it('is left as written for a task whose project is not registered', async () => {
    box = await sandbox({ workflow: prompting });
    const ref = await taskIn(box, 'working', { meta: { workflow: 'prompting' } });
    const task = await box.orange.store.read(ref.project, ref.id);
    const orphan: Task = { ...task, meta: { ...task.meta, project: 'gone' } };
    expect(await box.orange.engine.prompt(box.orange.workflow('prompting'), orphan, 'worker', false)).toBe('Work on a task in working from {base} in gone');
  });
});
