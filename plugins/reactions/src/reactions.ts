import {
  definePlugin,
  isOrangeError,
  parseSections,
  setSection,
  type AgentRole,
  type HistoryEvent,
  type Orange,
  type OrangePlugin,
  type PullRequestCheck,
  type PullRequestEvent,
  type PullRequestReview,
  type Task,
  type Workflow,
} from '@orange/core';
import { ciFeedback, reviewFeedback } from './feedback-text.js';
import { parseReactionsOptions, type ReactionsOptions, type ReactionsOptionsInput } from './options.js';

export type ReactionName = 'ci-failed' | 'changes-requested' | 'approved-and-green';

/** What one reaction decided on this pass. */
type Decision =
  | { readonly kind: 'send'; readonly key: string; readonly text: string; readonly line: string; readonly reason: string }
  | { readonly kind: 'notify'; readonly key: string; readonly title: string; readonly reason: string }
  | { readonly kind: 'give-up'; readonly key: string; readonly reason: string };

/**
 * Reactions: an open pull request's feedback goes back to the agent. Run by the monitor's pull
 * request sync (the `pullRequestChecked` hook); every firing is recorded in the task's history
 * (`reaction.fired`, `reaction.gave_up`) so it never fires twice for the same check run or review.
 */
export function reactions(options: ReactionsOptionsInput = {}): OrangePlugin {
  const settings = parseReactionsOptions(options);
  return definePlugin({
    name: 'reactions',
    apply(orange) {
      orange.hooks.pullRequestChecked.tapPromise('reactions', (event) => react(event, settings));
      // A worker started (or restarted) while feedback waits is told where it is.
      orange.hooks.prompt.tap('reactions', (prompt, event) =>
        event.role === 'worker' && hasFeedback(event.task)
          ? `${prompt}\n\nPull request feedback waits in ## Feedback of TASK.md: act on it first.\n`
          : prompt,
      );
      // The worker handing its fix to review (leaving a worker's state for a reviewer's) has acted on
      // the feedback: a later respawn must not be told it still waits. Cleared through the event's
      // section write (under the lock the engine holds; recorded in the history).
      orange.hooks.afterTransition.tapPromise('reactions', async (event) => {
        const handedToReview = agentOf(event.workflow, event.from) === 'worker' && agentOf(event.workflow, event.to) === 'reviewer';
        if (handedToReview && hasFeedback(event.task)) await event.writeSection('Feedback', '');
      });
    },
  });
}

async function react(event: PullRequestEvent, settings: ReactionsOptions): Promise<void> {
  const { orange, task, feedback } = event;
  const { project, id } = task.meta;
  // Read once, and only when some reaction has something to look at (most passes: nothing).
  let read: Promise<HistoryEvent[]> | undefined;
  const history = () => (read ??= orange.store.history(project, id));
  const now = Date.now();
  // While a reviewer agent runs, the worker is not at work and the review gate refuses the move back
  // to working: what would reach the worker (and giving up on it) waits for the review to end.
  // Nothing is recorded, so the next pass decides again. Checked again under the lock.
  const heldBack = (status: string, d: Decision) => d.kind !== 'notify' && agentOf(event.workflow, status) === 'reviewer';
  const decisions: Array<[ReactionName, Decision]> = [];
  const ci = await decideCiFailed(event, settings['ci-failed'], history, now);
  if (ci && !heldBack(task.meta.status, ci)) decisions.push(['ci-failed', await withLogs(orange, event, ci, settings['ci-failed'].logLines)]);
  const review = await decideChangesRequested(event, settings['changes-requested'], history, now);
  if (review && !heldBack(task.meta.status, review)) decisions.push(['changes-requested', review]);

  const attempt = async (name: ReactionName) => handedOver(await history(), name).length + 1;
  if (decisions.length > 0) await recordDecisions(event, decisions, heldBack, attempt);
  const sends = decisions.filter((d): d is [ReactionName, Extract<Decision, { kind: 'send' }>] => d[1].kind === 'send');
  for (const [name, d] of decisions) {
    if (d.kind === 'notify') {
      orange.notifications.raise({ event: `reaction.${name}`, priority: 'action', title: d.title, reason: d.reason, task: task.meta });
      event.report({ reaction: name, outcome: 'a human was notified' });
    } else if (d.kind === 'give-up') {
      await giveUp(orange, task, name, d.reason);
      event.report({ reaction: name, outcome: `gave up: ${d.reason}` });
    }
  }
  if (sends.length > 0) {
    const outcome = await sendToWorker(event, sends.map(([, d]) => d));
    for (const [name] of sends) event.report({ reaction: name, outcome: `${outcome} (attempt ${await attempt(name)})` });
  }
  await approvedAndGreen(event, settings['approved-and-green'], history, now);
}

/**
 * Records the decisions under the task lock, dropping those another monitor acted on since they
 * were decided (without the lock) and those held back by the task's status as it is now; writes
 * what is sent to the worker as ## Feedback. `decisions` keeps what is left.
 */
async function recordDecisions(
  event: PullRequestEvent,
  decisions: Array<[ReactionName, Decision]>,
  heldBack: (status: string, d: Decision) => boolean,
  attempt: (name: ReactionName) => Promise<number>,
): Promise<void> {
  const { orange, feedback } = event;
  const { project, id } = event.task.meta;
  await orange.store.withTaskLock(project, id, async () => {
    const fresh = await orange.store.history(project, id);
    // Only a decision the status can hold back needs the status.
    const status = decisions.some(([, d]) => d.kind !== 'notify') ? (await orange.store.read(project, id)).meta.status : null;
    for (let i = decisions.length - 1; i >= 0; i--) {
      const [name, d] = decisions[i] as [ReactionName, Decision];
      const done = lastOf(fresh, 'reaction.gave_up', name, d.key) ?? (d.kind === 'give-up' ? undefined : lastOf(fresh, 'reaction.fired', name, d.key));
      if (done || (status !== null && heldBack(status, d))) decisions.splice(i, 1);
    }
    const sends = decisions.filter((entry) => entry[1].kind === 'send');
    for (const [name, d] of decisions) {
      if (d.kind === 'give-up') await orange.store.appendHistory(project, id, { type: 'reaction.gave_up', reaction: name, key: d.key, reason: d.reason });
      else await orange.store.appendHistory(project, id, { type: 'reaction.fired', reaction: name, key: d.key, head: feedback.headSha, attempt: await attempt(name), auto: d.kind === 'send' });
    }
    if (sends.length > 0) {
      const text = sends.map(([, d]) => (d.kind === 'send' ? d.text : '')).join('\n\n');
      await orange.store.update(project, id, {}, (body) => setSection(body, 'Feedback', text));
    }
  });
}

/** The agent a workflow's state has at work (null: none, or not a state). */
function agentOf(workflow: Workflow, status: string): AgentRole | null {
  return workflow.state(status)?.agent ?? null;
}

/** The newest event of `type` for `reaction` and `key`, if any. */
function lastOf(history: readonly HistoryEvent[], type: string, reaction: ReactionName, key?: string): HistoryEvent | undefined {
  return history.findLast((e) => e.type === type && e.reaction === reaction && (key === undefined || e.key === key));
}

/**
 * The firings that handed work to the agent (`auto: true`), for one key or all: only these count
 * toward `retries` and `escalateAfter`. A notification to a human (`auto: false`) never does.
 */
function handedOver(history: readonly HistoryEvent[], reaction: ReactionName, key?: string): HistoryEvent[] {
  return history.filter((e) => e.type === 'reaction.fired' && e.reaction === reaction && e.auto !== false && (key === undefined || e.key === key));
}

function hasFeedback(task: Pick<Task, 'body'>): boolean {
  return (parseSections(task.body).get('Feedback')?.trim() ?? '') !== '';
}

/** The task's history, read on first use. */
type LazyHistory = () => Promise<readonly HistoryEvent[]>;

async function decideCiFailed(event: PullRequestEvent, o: ReactionsOptions['ci-failed'], readHistory: LazyHistory, now: number): Promise<Decision | null> {
  const { checks, headSha } = event.feedback;
  const failing = checks.filter((c) => c.state === 'failure');
  // Only a finished run is reported: while checks still run, the list of failures is not complete.
  if (failing.length === 0 || checks.some((c) => c.state === 'pending')) return null;
  const history = await readHistory();
  if (lastOf(history, 'reaction.gave_up', 'ci-failed')) return null;
  const key = `${headSha}:${failing.map((c) => c.runId).sort().join(',')}`;
  const names = failing.map((c) => c.name).join(', ');
  // Without auto a human is told once per failing run; nothing is handed over, so nothing gives up.
  if (!o.auto) return lastOf(history, 'reaction.fired', 'ci-failed', key) ? null : { kind: 'notify', key, title: `CI failed: ${label(event.task)}`, reason: `failing: ${names}` };
  const fired = handedOver(history, 'ci-failed', key).at(-1);
  if (fired) {
    if (o.escalateAfter !== undefined && now - Date.parse(fired.timestamp) > o.escalateAfter) {
      return { kind: 'give-up', key, reason: `CI still failing (${names}) ${Math.round(o.escalateAfter / 1000)} s after it was sent to the agent` };
    }
    return null;
  }
  const count = handedOver(history, 'ci-failed').length;
  if (count >= o.retries) return { kind: 'give-up', key, reason: `CI failed again (${names}) after ${count} attempt${count === 1 ? '' : 's'} to fix it` };
  return {
    kind: 'send',
    key,
    text: '',
    line: `[orange] CI failed on the pull request (${names}). The failing checks and their logs are in ## Feedback of TASK.md: fix them, commit, push, then run: orange task update --status agent-review`,
    reason: `CI failed: ${names}`,
  };
}

/** Fills a CI decision's feedback text with each failing check's log tail (read now, outside the lock). */
async function withLogs(orange: Orange, event: PullRequestEvent, decision: Decision, lines: number): Promise<Decision> {
  if (decision.kind !== 'send') return decision;
  const scm = orange.maybeSlot('scm');
  const project = await orange.projects.get(event.task.meta.project);
  const failing: Array<{ check: PullRequestCheck; log: string | null }> = [];
  for (const check of event.feedback.checks.filter((c) => c.state === 'failure')) {
    const log = scm?.checkLog ? await scm.checkLog(event.task, project, check, lines).catch(() => null) : null;
    failing.push({ check, log });
  }
  return { ...decision, text: ciFeedback(event.feedback.url, failing) };
}

async function decideChangesRequested(event: PullRequestEvent, o: ReactionsOptions['changes-requested'], readHistory: LazyHistory, now: number): Promise<Decision | null> {
  const { reviews, headSha } = event.feedback;
  const review = latest(reviews.filter((r) => r.state === 'changes_requested'));
  if (!review) return null;
  const history = await readHistory();
  if (lastOf(history, 'reaction.gave_up', 'changes-requested')) return null;
  // A later approval by the same reviewer settles their request.
  if (reviews.some((r) => r.author === review.author && r.state === 'approved' && r.submittedAt > review.submittedAt)) return null;
  const key = `review:${review.id}`;
  if (!o.auto) return lastOf(history, 'reaction.fired', 'changes-requested', key) ? null : { kind: 'notify', key, title: `Changes requested: ${label(event.task)}`, reason: `by ${review.author}` };
  const fired = handedOver(history, 'changes-requested', key).at(-1);
  if (fired) {
    if (o.escalateAfter !== undefined && fired.head === headSha && now - Date.parse(fired.timestamp) > o.escalateAfter) {
      return { kind: 'give-up', key, reason: `no new commit ${Math.round(o.escalateAfter / 1000)} s after ${review.author}'s review was sent to the agent` };
    }
    return null;
  }
  const count = handedOver(history, 'changes-requested').length;
  if (count >= o.retries) return { kind: 'give-up', key, reason: `changes requested again by ${review.author} after ${count} rounds` };
  return {
    kind: 'send',
    key,
    text: reviewFeedback(event.feedback.url, review),
    line: `[orange] ${review.author} requested changes on the pull request. The review and its comments are in ## Feedback of TASK.md: address them, commit, push, then run: orange task update --status agent-review`,
    reason: `changes requested by ${review.author}`,
  };
}

function latest(reviews: readonly PullRequestReview[]): PullRequestReview | undefined {
  return [...reviews].sort((a, b) => a.submittedAt.localeCompare(b.submittedAt)).at(-1);
}

/**
 * Hands feedback to the worker: the task goes back to `working` through the workflow (when it has
 * that transition), then one line is typed into the worker's terminal; a worker that is gone is
 * respawned (its prompt points at ## Feedback).
 */
async function sendToWorker(event: PullRequestEvent, sends: ReadonlyArray<Extract<Decision, { kind: 'send' }>>): Promise<string> {
  const { orange } = event;
  const ref = { project: event.task.meta.project, id: event.task.meta.id };
  const log = orange.log.child('reactions');
  const reason = sends.map((s) => s.reason).join('; ');
  let task = await orange.store.read(ref.project, ref.id);
  if (task.meta.status !== 'working' && event.workflow.between(task.meta.status, 'working').length > 0) {
    try {
      task = (await orange.engine.transition(ref, 'working', { cause: 'auto', reason, expectFrom: task.meta.status })).task;
    } catch (error) {
      log.warn('moving the task back to working was refused', { task: ref.id, error: String(error) });
    }
  }
  const runtime = orange.maybeSlot('runtime');
  const line = sends.length === 1 ? (sends[0]?.line ?? '') : `[orange] Pull request feedback (${reason}) is in ## Feedback of TASK.md: address all of it, commit, push, then run: orange task update --status agent-review`;
  try {
    if (runtime?.sendLine && (await runtime.sendLine(task.meta, 'worker', line))) return 'sent to the worker';
    await orange.engine.respawn(ref);
    return 'worker respawned with the feedback';
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.warn('feedback could not reach the worker', { task: ref.id, error: message });
    await orange.store.withTaskLock(ref.project, ref.id, () => orange.store.update(ref.project, ref.id, { attention: `pull request feedback not delivered: ${message}` }));
    return `not delivered: ${message}`;
  }
}

/** Warning, then `stuck` through the workflow when it can get there; else the task is flagged. */
async function giveUp(orange: Orange, task: Task, name: ReactionName, reason: string): Promise<void> {
  orange.notifications.raise({ event: 'reaction.gave_up', priority: 'warning', title: `Reaction ${name} gave up: ${label(task)}`, reason, task: task.meta });
  const ref = { project: task.meta.project, id: task.meta.id };
  const current = await orange.store.read(ref.project, ref.id);
  const workflow = await orange.workflowFor(current.meta);
  try {
    if (current.meta.status !== 'stuck' && workflow.between(current.meta.status, 'stuck').length > 0) {
      await orange.engine.transition(ref, 'stuck', { cause: 'auto', reason: `reaction ${name} gave up: ${reason}`, expectFrom: current.meta.status });
      return;
    }
  } catch (error) {
    if (!isOrangeError(error)) throw error;
  }
  await orange.store.withTaskLock(ref.project, ref.id, () => orange.store.update(ref.project, ref.id, { attention: `reaction ${name} gave up: ${reason}` }));
}

/**
 * Approved with every check green: notify a human once per head commit, or merge when `auto`. Only
 * while the task is where `done` follows without force (reviewing, in the built-in workflows): a
 * task still being worked on or reviewed by its reviewer agent is neither merged nor announced, and
 * the next pass looks again. A merge that fails is tried again on later passes, `retries` times.
 */
async function approvedAndGreen(event: PullRequestEvent, o: ReactionsOptions['approved-and-green'], readHistory: LazyHistory, now: number): Promise<void> {
  const { orange, feedback } = event;
  const { reviews, checks } = feedback;
  const approved =
    feedback.reviewDecision === 'approved' ||
    (feedback.reviewDecision === null && reviews.some((r) => r.state === 'approved') && !reviews.some((r) => r.state === 'changes_requested'));
  const green = checks.every((c) => c.state === 'success' || c.state === 'skipped');
  if (!approved || !green) return;
  const key = `head:${feedback.headSha}`;
  const scm = orange.maybeSlot('scm');
  const merge = o.auto && scm?.mergePullRequest ? scm.mergePullRequest.bind(scm) : null;
  const ref = { project: event.task.meta.project, id: event.task.meta.id };
  const next = nextApproval(await readHistory(), key, merge !== null, o, now);
  if (next.kind === 'wait') return;
  if (next.kind === 'give-up') {
    if (await recordGiveUp(orange, ref, key, next.reason)) await warnGaveUp(event, next.reason);
    return;
  }
  const fired = await orange.store.withTaskLock(ref.project, ref.id, async () => {
    // Decided without the lock: another monitor may have acted since, or the task moved.
    const fresh = await orange.store.history(ref.project, ref.id);
    const again = nextApproval(fresh, key, merge !== null, o, now);
    if (again.kind !== 'fire' || again.attempt !== next.attempt) return null;
    const current = await orange.store.read(ref.project, ref.id);
    if (event.workflow.between(current.meta.status, 'done').length === 0) return null;
    await orange.store.appendHistory(ref.project, ref.id, { type: 'reaction.fired', reaction: 'approved-and-green', key, head: feedback.headSha, attempt: next.attempt, auto: merge !== null });
    return current;
  });
  if (!fired) return;
  if (!merge) {
    orange.notifications.raise({
      event: 'pull_request.approved',
      priority: 'action',
      title: `Approved with green checks: ${label(event.task)}`,
      reason: `${feedback.url} can be merged`,
      task: fired.meta,
    });
    event.report({ reaction: 'approved-and-green', outcome: 'a human was notified' });
    return;
  }
  // The merge is the move's effect: it runs only once every check of `→ done` passed (a team's
  // veto included), so a refused move merges nothing.
  let merged: string | null = null;
  let moved = true;
  try {
    const result = await orange.engine.transition(ref, 'done', {
      cause: 'auto',
      reason: 'pull request approved with green checks: merged',
      expectFrom: fired.meta.status,
      effect: async (current) => {
        merged = (await merge(current, await orange.projects.get(ref.project))).message;
        await orange.store.appendHistory(ref.project, ref.id, { type: 'task.merged', via: 'approved-and-green', url: feedback.url });
      },
    });
    moved = result.changed;
  } catch (error) {
    if (merged === null) {
      const refused = isOrangeError(error) && error.code !== 'E_SCM' && 'from' in error.details;
      const reason = `${refused ? 'not merged, the move to done was refused' : 'merging failed'}: ${error instanceof Error ? error.message : String(error)}`;
      await orange.store.withTaskLock(ref.project, ref.id, () => orange.store.appendHistory(ref.project, ref.id, { type: 'reaction.failed', reaction: 'approved-and-green', key, attempt: next.attempt, reason }));
      if (refused || next.attempt > o.retries) {
        const final = `${reason} (attempt ${next.attempt}${refused ? '' : ', no retries left'})`;
        if (await recordGiveUp(orange, ref, key, final)) await warnGaveUp(event, final);
        return;
      }
      event.report({ reaction: 'approved-and-green', outcome: `${reason} (attempt ${next.attempt}; tried again on the next pass)` });
      return;
    }
    orange.log.child('reactions').warn('merged, but the move to done failed after', { task: ref.id, error: error instanceof Error ? error.message : String(error) });
  }
  if (!moved) {
    event.report({ reaction: 'approved-and-green', outcome: 'not merged: the task moved meanwhile' });
    return;
  }
  event.report({ reaction: 'approved-and-green', outcome: merged ?? 'merged' });
}

/** What approved-and-green does next for `key`: fire (attempt n), give up (escalateAfter passed), or wait. */
function nextApproval(
  history: readonly HistoryEvent[],
  key: string,
  merging: boolean,
  o: ReactionsOptions['approved-and-green'],
  now: number,
): { kind: 'fire'; attempt: number } | { kind: 'give-up'; reason: string } | { kind: 'wait' } {
  if (lastOf(history, 'reaction.gave_up', 'approved-and-green', key)) return { kind: 'wait' };
  const fired = history.filter((e) => e.type === 'reaction.fired' && e.reaction === 'approved-and-green' && e.key === key);
  const first = fired[0];
  if (first === undefined) return { kind: 'fire', attempt: 1 };
  if (o.escalateAfter !== undefined && now - Date.parse(first.timestamp) > o.escalateAfter) {
    return { kind: 'give-up', reason: `approved with green checks, still not merged ${Math.round(o.escalateAfter / 1000)} s later` };
  }
  // A human was told (once); or a merge is under way or went through (the pull request sync finishes the task).
  const failed = history.filter((e) => e.type === 'reaction.failed' && e.reaction === 'approved-and-green' && e.key === key).length;
  if (!merging || failed < fired.length) return { kind: 'wait' };
  return { kind: 'fire', attempt: fired.length + 1 };
}

/** Records that approved-and-green gave up on `key`; false when it had already (another monitor). */
async function recordGiveUp(orange: Orange, ref: { project: string; id: string }, key: string, reason: string): Promise<boolean> {
  return orange.store.withTaskLock(ref.project, ref.id, async () => {
    if (lastOf(await orange.store.history(ref.project, ref.id), 'reaction.gave_up', 'approved-and-green', key)) return false;
    await orange.store.appendHistory(ref.project, ref.id, { type: 'reaction.gave_up', reaction: 'approved-and-green', key, reason });
    return true;
  });
}

/** A warning that approved-and-green gave up. The task stays where it is: its work is done and approved; a person merges. */
async function warnGaveUp(event: PullRequestEvent, reason: string): Promise<void> {
  const current = await event.orange.store.read(event.task.meta.project, event.task.meta.id);
  event.orange.notifications.raise({ event: 'reaction.gave_up', priority: 'warning', title: `Reaction approved-and-green gave up: ${label(current)}`, reason, task: current.meta });
  event.report({ reaction: 'approved-and-green', outcome: `gave up: ${reason}` });
}

function label(task: Pick<Task, 'meta'>): string {
  return task.meta.summary.trim() || task.meta.branch;
}
