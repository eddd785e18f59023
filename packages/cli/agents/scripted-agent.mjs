#!/usr/bin/env node
// A scripted coding agent for `orange demo` and the end-to-end tests. It behaves like a real
// agent would under Orange's rules: it edits TASK.md, commits in its worktree, and asks for
// transitions through the `orange` CLI on PATH. Its script comes from lines in `## Context`:
//
//   agent.reviews: FAIL,PASS        verdict per review round (default PASS)
//   agent.worker: normal | crash | crash-in-working | plan-then-exit | handoff-then-exit | skip-handoff-first
//   agent.reviewer: normal | crash | crash-once | silent
//   agent.rename: new-branch-name   rename the branch from inside the worktree while planning
//   agent.pace: 800                 milliseconds between steps (so a human can watch)
//
// Pull request feedback that reactions write into `## Feedback` is logged line by line as
// `feedback: …` when a notification arrives, then acted on like a failed review.
//
// Everything it does is printed (visible with `orange task attach`) and appended to
// $ORANGE_HOME/agent-logs/<task-id>.log ($ORANGE_AGENT_LOG_DIR/<task-id>.log where that is set: in a
// container, $ORANGE_HOME holds only the agents' socket).
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseSections, parseTaskFile, setSection } from '@orange/core';

const env = process.env;
const role = env.ORANGE_ROLE ?? 'worker';
const taskFile = env.ORANGE_TASK_FILE ?? 'TASK.md';
const taskId = env.ORANGE_TASK_ID ?? 'unknown';
const logDir = env.ORANGE_AGENT_LOG_DIR ?? join(env.ORANGE_HOME ?? '.', 'agent-logs');
mkdirSync(logDir, { recursive: true });

function log(message) {
  const line = `[${new Date().toISOString().slice(11, 23)}] ${role}: ${message}`;
  console.log(line);
  appendFileSync(join(logDir, `${taskId}.log`), `${line}\n`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exits, logging the exact time so exit-to-transition latency can be measured. */
function exitNow(code, why) {
  log(`${why}; exit ${code} at ${Date.now()}`);
  process.exit(code);
}

function readTask() {
  return parseTaskFile(readFileSync(taskFile, 'utf8'), taskFile);
}

function directives() {
  const context = parseSections(readTask().body).get('Context') ?? '';
  const found = {};
  for (const line of context.split('\n')) {
    const match = /^\s*agent\.([\w-]+)\s*:\s*(.+?)\s*$/.exec(line);
    if (match) found[match[1]] = match[2];
  }
  return found;
}

function writeSection(name, content) {
  // Agents edit TASK.md in place (it is a link into $ORANGE_HOME); never replace the link.
  const text = readFileSync(taskFile, 'utf8');
  writeFileSync(taskFile, setSection(text, name, content));
  log(`wrote ## ${name}`);
}

function orange(...args) {
  try {
    const out = execFileSync('orange', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    log(`orange ${args.join(' ')} → ok`);
    return { ok: true, out };
  } catch (error) {
    const stderr = String(error.stderr ?? '').trim();
    log(`orange ${args.join(' ')} → refused: ${stderr}`);
    return { ok: false, out: stderr };
  }
}

function git(...args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const script = directives();
const pace = Number(script.pace ?? 0);
const step = () => sleep(pace);

async function commitChange(label) {
  const file = join('orange-demo', `${taskId}.md`);
  mkdirSync('orange-demo', { recursive: true });
  appendFileSync(file, `- ${label} (${new Date().toISOString()})\n`);
  git('add', file);
  git('commit', '-q', '-m', `${label} for task ${taskId}`);
  log(`committed: ${label}`);
  await step();
}

async function requestReview(round) {
  writeSection('Handoff', `DONE: ${round === 0 ? 'implemented the task' : 'fixed the review findings'}\nDECISIONS: kept the change small\nUNCERTAIN: none`);
  await step();
  return orange('task', 'update', '--status', 'agent-review').ok;
}

async function work(fixing) {
  await commitChange(fixing ? 'address review feedback' : 'implement the task');
  if (script.worker === 'crash-in-working') {
    exitNow(3, 'crashing before the handoff');
  }
  if (script.worker === 'skip-handoff-first' && !fixing) {
    const refused = orange('task', 'update', '--status', 'agent-review');
    if (refused.ok) log('unexpected: review requested without a handoff');
    await step();
  }
  if (script.worker === 'handoff-then-exit') {
    writeSection('Handoff', 'DONE: implemented the task');
    exitNow(0, 'exiting without asking for review');
  }
  await requestReview(fixing ? 1 : 0);
}

async function waitForNotifications() {
  log('waiting for the review (notifications arrive on stdin)');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    log(`notified: ${line.trim()}`);
    await sleep(300 + pace);
    // Pull request feedback (reactions): a real agent would read it and fix what it says.
    const feedback = parseSections(readTask().body).get('Feedback') ?? '';
    for (const item of feedback.split('\n').filter((l) => l.trim() !== '')) log(`feedback: ${item.trim()}`);
    const status = readTask().meta.status;
    if (status === 'working') await work(true);
    else if (status === 'reviewing') log('review passed; waiting for the human to merge');
    else log(`status is ${status}; nothing to do`);
  }
}

async function worker() {
  const status = readTask().meta.status;
  log(`started in ${status} (task ${taskId})`);
  await step();
  if (status === 'clarification') {
    writeSection('Questions', '1. What should the result look like?\n2. Which files may change?');
    return waitForNotifications();
  }
  if (status === 'planning') {
    if (script.worker === 'crash') {
      exitNow(2, 'crashing while planning');
    }
    writeSection('Plan', 'APPROACH: make the smallest change that does the job\nTOUCHING: orange-demo/');
    await step();
    if (script.worker === 'plan-then-exit') {
      exitNow(0, 'exiting after the plan without asking to move on');
    }
    if (script.rename) orange('task', 'update', '--branch', script.rename);
    if (!orange('task', 'update', '--status', 'working').ok) exitNow(4, 'could not start working');
    await step();
    await work(false);
  } else if (status === 'working') {
    if (script.worker === 'crash') {
      exitNow(2, 'crashing while working');
    }
    await work(parseSections(readTask().body).has('Review'));
  }
  await waitForNotifications();
}

async function reviewer() {
  const task = readTask();
  const round = Number(env.ORANGE_REVIEW_ROUND ?? task.meta.review_round);
  log(`reviewing round ${round}`);
  await step();
  const crashMarker = join(logDir, `${taskId}.reviewer-crashed`);
  if (script.reviewer === 'crash' || (script.reviewer === 'crash-once' && !existsSync(crashMarker))) {
    writeFileSync(crashMarker, 'crashed\n');
    exitNow(5, 'crashing without a review');
  }
  const verdicts = (script.reviews ?? 'PASS').split(',').map((v) => v.trim().toUpperCase());
  const verdict = verdicts[round - 1] ?? verdicts.at(-1) ?? 'PASS';
  let diff = '';
  try {
    diff = git('diff', '--stat', 'origin/HEAD...HEAD');
  } catch {
    diff = '(no origin/HEAD to diff against)';
  }
  writeSection(
    'Review',
    verdict === 'PASS'
      ? `Verdict: PASS\n\nThe change does what the task asks.\n\n${diff}`
      : `Verdict: FAIL\n\n- The change needs one more pass (round ${round}).\n\n${diff}`,
  );
  await step();
  if (script.reviewer === 'silent') {
    exitNow(0, 'exiting without setting the status');
  }
  const target = verdict === 'PASS' ? 'reviewing' : round < 2 ? 'working' : 'stuck';
  orange('task', 'update', '--status', target);
  // The reviewer window is killed by the transition; wait for it.
  await sleep(30_000);
}

await (role === 'reviewer' ? reviewer() : worker());
