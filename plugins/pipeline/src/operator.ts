import { inertHeadings, OrangeError, parseSections, setSection, type Orange, type Task, type TaskRef, type TransitionResult } from '@orange/core';
import { writeCheckpoint } from './checkpoint.js';
import { pipelineOf } from './instance.js';
import { pipelineFields, resumeTarget } from './policy.js';
import { withAnswer } from './questions.js';

const RUNNING = new Set(['classifying', 'routing', 'executing', 'retrying', 'escalating', 'verifying']);

async function pipelineTask(orange: Orange, ref: TaskRef): Promise<Task> {
  pipelineOf(orange);
  const task = await orange.engine.readVerified(ref);
  const workflow = await orange.workflowFor(task.meta);
  if (workflow.name !== 'pipeline') throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} runs the ${workflow.name} workflow; only pipeline tasks can be clarified or resumed`);
  return task;
}

/**
 * `orange task clarify`: adds the answer to the task's `## Context` and classifies it again
 * (awaiting_clarification → classifying).
 */
export async function clarifyTask(orange: Orange, ref: TaskRef, answer: string): Promise<TransitionResult> {
  const text = answer.trim();
  if (text === '') throw new OrangeError('E_INVALID_INPUT', 'the clarification is empty; say what the task is about');
  const task = await pipelineTask(orange, ref);
  if (task.meta.status !== 'awaiting_clarification') {
    throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is ${task.meta.status}; only a task awaiting clarification can be clarified`);
  }
  // The answer and the forgotten classification ride the move: a vetoed move leaves the task as it was.
  const result = await orange.engine.transition(ref, 'classifying', {
    actor: 'person',
    cause: 'request',
    expectFrom: 'awaiting_clarification',
    fields: { confidence: null, intent: '' },
    // The answer goes under the questions it answers (the classifier reads both) and into the
    // context the phases work from.
    body: (body) => {
      const sections = parseSections(body);
      const previous = sections.get('Context');
      const answer = `Clarification: ${inertHeadings(text)}`;
      const withContext = setSection(body, 'Context', previous ? `${previous}\n\n${answer}` : answer);
      return setSection(withContext, 'Questions', withAnswer(sections.get('Questions'), text));
    },
  });
  if (!result.changed) throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} moved to ${result.from} meanwhile; only a task awaiting clarification can be clarified`);
  // History is appended under the task lock, as every engine write is.
  await orange.store.withTaskLock(ref.project, ref.id, () => orange.store.appendHistory(ref.project, ref.id, { type: 'pipeline.clarified', text: text.slice(0, 500) }));
  return result;
}

/**
 * `orange task resume`: continues a stopped pipeline task from its checkpoint, or one whose driver
 * died in a running state (killed, machine restarted): that one is stopped first, then resumed,
 * so the phase in progress runs again. `budgetUsd` raises the task's budget first.
 */
export async function resumeTask(orange: Orange, ref: TaskRef, options: { budgetUsd?: number } = {}): Promise<TransitionResult> {
  let task = await pipelineTask(orange, ref);
  const status = task.meta.status;
  if (RUNNING.has(status)) {
    const runtime = orange.maybeSlot('runtime');
    if (runtime && (await runtime.snapshot()).isAlive(task.meta, 'worker')) {
      throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is ${status} and its pipeline is still running`);
    }
    await orange.engine.transition(ref, 'stopped', { cause: 'request', actor: 'person', reason: 'resume: the pipeline driver is not running', expectFrom: status });
  } else if (status !== 'stopped') {
    throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is ${status}; only a stopped pipeline task (or one whose run died) can be resumed`);
  }
  if (options.budgetUsd !== undefined) {
    if (!(options.budgetUsd > 0)) throw new OrangeError('E_INVALID_INPUT', `the budget must be a positive number of USD, not ${options.budgetUsd}`);
    task = await orange.store.withTaskLock(ref.project, ref.id, async () => {
      await orange.engine.readVerified(ref);
      const updated = await orange.store.update(ref.project, ref.id, { budget_usd: options.budgetUsd });
      await writeCheckpoint(orange.paths, updated.meta);
      return updated;
    });
  } else {
    task = await orange.engine.readVerified(ref);
  }
  const fields = pipelineFields(task.meta);
  return orange.engine.transition(ref, resumeTarget(fields), { cause: 'request', actor: 'person', reason: 'resume', expectFrom: 'stopped' });
}

/**
 * `orange task respawn` (and the dashboard's Enter) on a pipeline task: its "agent" is the driver,
 * which is restarted as `orange task resume` does (a dead driver's task is stopped, then resumed
 * from its checkpoint), never the harness interactively. Undefined for a status the engine itself
 * refuses (created, finished).
 */
export async function respawnTask(orange: Orange, ref: TaskRef): Promise<Task | undefined> {
  const task = await orange.engine.readVerified(ref);
  const status = task.meta.status;
  if (status === 'awaiting_clarification') {
    throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is awaiting_clarification: nothing runs until it is clarified (orange task clarify ${ref.id} "more detail")`);
  }
  if (!RUNNING.has(status) && status !== 'stopped') return undefined;
  return (await resumeTask(orange, ref)).task;
}
