import {
  definePlugin,
  isOrangeError,
  parseSections,
  setSection,
  type HistoryEvent,
  type Orange,
  type OrangePlugin,
  type PullRequestCheck,
  type PullRequestEvent,
  type PullRequestReview,
  type Task,
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
        event.role === 'worker' && (parseSections(event.task.body).get('Feedback')?.trim() ?? '') !== ''
          ? `${prompt}\n\nPull request feedback waits in ## Feedback of TASK.md: act on it first.\n`
          : prompt,
      );
    },
  });
}

async function react(event: PullRequestEvent, settings: ReactionsOptions): Promise<void> {
  const { orange, task, feedback } = event;
  const { project, id } = task.meta;
  const history = await orange.store.history(project, id);
  const now = Date.now();
  const decisions: Array<[ReactionName, Decision]> = [];
  const ci = decideCiFailed(event, settings['ci-failed'], history, now);
  if (ci) decisions.push(['ci-failed', await withLogs(orange, event, ci, settings['ci-failed'].logLines)]);
  const review = decideChangesRequested(event, settings['changes-requested'], history, now);
  if (review) decisions.push(['changes-requested', review]);

  const attempt = (name: ReactionName) => history.filter((e) => e.type === 'reaction.fired' && e.reaction === name).length + 1;
  await orange.store.withTaskLock(project, id, async () => {
    // Decided on a read without the lock: another monitor may have fired the same key since.
    const fresh = await orange.store.history(project, id);
    for (let i = decisions.length - 1; i >= 0; i--) {
      const [name, d] = decisions[i] as [ReactionName, Decision];
      const done = lastOf(fresh, 'reaction.gave_up', name, d.key) ?? (d.kind === 'give-up' ? undefined : lastOf(fresh, 'reaction.fired', name, d.key));
      if (done) decisions.splice(i, 1);
    }
    const sends = decisions.filter((entry) => entry[1].kind === 'send');
    for (const [name, d] of decisions) {
      if (d.kind === 'give-up') await orange.store.appendHistory(project, id, { type: 'reaction.gave_up', reaction: name, key: d.key, reason: d.reason });
      else await orange.store.appendHistory(project, id, { type: 'reaction.fired', reaction: name, key: d.key, head: feedback.headSha, attempt: attempt(name), auto: d.kind === 'send' });
    }
    if (sends.length > 0) {
      const text = sends.map(([, d]) => (d.kind === 'send' ? d.text : '')).join('\n\n');
      await orange.store.update(project, id, {}, (body) => setSection(body, 'Feedback', text));
    }
  });

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
    for (const [name] of sends) event.report({ reaction: name, outcome: `${outcome} (attempt ${attempt(name)})` });
  }
  await approvedAndGreen(event, settings['approved-and-green'], history);
}

/** The newest event of `type` for `reaction` and `key`, if any. */
function lastOf(history: readonly HistoryEvent[], type: string, reaction: ReactionName, key?: string): HistoryEvent | undefined {
  return history.findLast((e) => e.type === type && e.reaction === reaction && (key === undefined || e.key === key));
}

function decideCiFailed(event: PullRequestEvent, o: ReactionsOptions['ci-failed'], history: readonly HistoryEvent[], now: number): Decision | null {
  const { checks, headSha } = event.feedback;
  const failing = checks.filter((c) => c.state === 'failure');
  // Only a finished run is reported: while checks still run, the list of failures is not complete.
  if (failing.length === 0 || checks.some((c) => c.state === 'pending')) return null;
  if (lastOf(history, 'reaction.gave_up', 'ci-failed')) return null;
  const key = `${headSha}:${failing.map((c) => c.runId).sort().join(',')}`;
  const names = failing.map((c) => c.name).join(', ');
  const fired = lastOf(history, 'reaction.fired', 'ci-failed', key);
  if (fired) {
    if (o.escalateAfter !== undefined && now - Date.parse(fired.timestamp) > o.escalateAfter) {
      return { kind: 'give-up', key, reason: `CI still failing (${names}) ${Math.round(o.escalateAfter / 1000)} s after it was sent to the agent` };
    }
    return null;
  }
  const count = history.filter((e) => e.type === 'reaction.fired' && e.reaction === 'ci-failed').length;
  if (count >= o.retries) return { kind: 'give-up', key, reason: `CI failed again (${names}) after ${count} attempt${count === 1 ? '' : 's'} to fix it` };
  if (!o.auto) return { kind: 'notify', key, title: `CI failed: ${label(event.task)}`, reason: `failing: ${names}` };
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

function decideChangesRequested(event: PullRequestEvent, o: ReactionsOptions['changes-requested'], history: readonly HistoryEvent[], now: number): Decision | null {
  const { reviews, headSha } = event.feedback;
  const review = latest(reviews.filter((r) => r.state === 'changes_requested'));
  if (!review) return null;
  if (lastOf(history, 'reaction.gave_up', 'changes-requested')) return null;
  // A later approval by the same reviewer settles their request.
  if (reviews.some((r) => r.author === review.author && r.state === 'approved' && r.submittedAt > review.submittedAt)) return null;
  const key = `review:${review.id}`;
  const fired = lastOf(history, 'reaction.fired', 'changes-requested', key);
  if (fired) {
    if (o.escalateAfter !== undefined && fired.head === headSha && now - Date.parse(fired.timestamp) > o.escalateAfter) {
      return { kind: 'give-up', key, reason: `no new commit ${Math.round(o.escalateAfter / 1000)} s after ${review.author}'s review was sent to the agent` };
    }
    return null;
  }
  const count = history.filter((e) => e.type === 'reaction.fired' && e.reaction === 'changes-requested').length;
  if (count >= o.retries) return { kind: 'give-up', key, reason: `changes requested again by ${review.author} after ${count} rounds` };
  if (!o.auto) return { kind: 'notify', key, title: `Changes requested: ${label(event.task)}`, reason: `by ${review.author}` };
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
  const workflow = await orange.workflowForProject(ref.project);
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

/** Approved with every check green: notify a human once per head commit, or merge when `auto`. */
async function approvedAndGreen(event: PullRequestEvent, o: ReactionsOptions['approved-and-green'], history: readonly HistoryEvent[]): Promise<void> {
  const { orange, feedback } = event;
  const { reviews, checks } = feedback;
  const approved =
    feedback.reviewDecision === 'approved' ||
    (feedback.reviewDecision === null && reviews.some((r) => r.state === 'approved') && !reviews.some((r) => r.state === 'changes_requested'));
  const green = checks.every((c) => c.state === 'success' || c.state === 'skipped');
  if (!approved || !green) return;
  const key = `head:${feedback.headSha}`;
  if (lastOf(history, 'reaction.fired', 'approved-and-green', key) || lastOf(history, 'reaction.gave_up', 'approved-and-green', key)) return;
  const ref = { project: event.task.meta.project, id: event.task.meta.id };
  const scm = orange.maybeSlot('scm');
  const merge = o.auto && scm?.mergePullRequest ? scm.mergePullRequest.bind(scm) : null;
  const first = await orange.store.withTaskLock(ref.project, ref.id, async () => {
    // Another monitor may have fired it since the history was read.
    const fresh = await orange.store.history(ref.project, ref.id);
    if (lastOf(fresh, 'reaction.fired', 'approved-and-green', key) || lastOf(fresh, 'reaction.gave_up', 'approved-and-green', key)) return false;
    await orange.store.appendHistory(ref.project, ref.id, { type: 'reaction.fired', reaction: 'approved-and-green', key, head: feedback.headSha, auto: merge !== null });
    return true;
  });
  if (!first) return;
  if (!merge) {
    orange.notifications.raise({
      event: 'pull_request.approved',
      priority: 'action',
      title: `Approved with green checks: ${label(event.task)}`,
      reason: `${feedback.url} can be merged`,
      task: event.task.meta,
    });
    event.report({ reaction: 'approved-and-green', outcome: 'a human was notified' });
    return;
  }
  try {
    const project = await orange.projects.get(ref.project);
    const { message } = await merge(event.task, project);
    await orange.store.withTaskLock(ref.project, ref.id, () => orange.store.appendHistory(ref.project, ref.id, { type: 'task.merged', via: 'approved-and-green', url: feedback.url }));
    if (event.workflow.between(event.task.meta.status, 'done').length > 0) {
      await orange.engine.transition(ref, 'done', { cause: 'auto', reason: 'pull request approved with green checks: merged', expectFrom: event.task.meta.status });
    }
    event.report({ reaction: 'approved-and-green', outcome: message });
  } catch (error) {
    const reason = `merging failed: ${error instanceof Error ? error.message : String(error)}`;
    await orange.store.withTaskLock(ref.project, ref.id, () => orange.store.appendHistory(ref.project, ref.id, { type: 'reaction.gave_up', reaction: 'approved-and-green', key, reason }));
    orange.notifications.raise({ event: 'reaction.gave_up', priority: 'warning', title: `Reaction approved-and-green gave up: ${label(event.task)}`, reason, task: event.task.meta });
    event.report({ reaction: 'approved-and-green', outcome: `gave up: ${reason}` });
  }
}

function label(task: Pick<Task, 'meta'>): string {
  return task.meta.summary.trim() || task.meta.branch;
}
