#!/usr/bin/env node
// A fleet agent for `npm run bench -- fleet`: it behaves like a real agent between its model's
// turns. It thinks 1–3 s between steps, writes its sections with `orange task section set`,
// commits, and either asks for the next status or (every other task) simply exits where the
// exit rules move it on (after its handoff, after its review); a plan is always followed by a request,
// since a worker that left after planning would leave nobody to work. Every request and exit is logged with its time, so the bench can measure
// how long Orange takes to act on it. Node builtins only.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const env = process.env;
const role = env.ORANGE_ROLE ?? 'worker';
const taskId = env.ORANGE_TASK_ID ?? 'unknown';
const logDir = join(env.ORANGE_HOME ?? '.', 'agent-logs');
mkdirSync(logDir, { recursive: true });
// Exactly half the fleet exits where the other half asks: decided by the task's number in its branch
// (fleet/task-<n>, as the bench creates them), so every run has the same mix and a respawned agent agrees.
const exits = Number(/(\d+)$/.exec(env.ORANGE_BRANCH ?? '')?.[1] ?? taskId.charCodeAt(taskId.length - 1)) % 2 === 0;

function log(event, fields = {}) {
  appendFileSync(join(logDir, `${taskId}.jsonl`), `${JSON.stringify({ at: Date.now(), role, event, ...fields })}\n`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const think = () => sleep(1000 + Math.random() * 2000);

function orange(args, input) {
  try {
    execFileSync('orange', args, { encoding: 'utf8', input: input ?? '', stdio: ['pipe', 'pipe', 'pipe'] });
    return true;
  } catch (error) {
    log('refused', { args, stderr: String(error.stderr ?? '').trim() });
    return false;
  }
}

function status() {
  const text = readFileSync(env.ORANGE_TASK_FILE ?? 'TASK.md', 'utf8');
  return /^status:\s*(\S+)/m.exec(text)?.[1] ?? 'unknown';
}

/** Asks for `to`, or exits where this agent's half of the fleet exits (when leaving is a way on). */
async function move(to, mayExit) {
  await think();
  if (exits && mayExit) {
    log('exit', { from: status(), expect: to });
    process.exit(0);
  }
  log('request', { from: status(), to });
  orange(['task', 'update', '--status', to]);
}

async function worker() {
  if (status() === 'planning') {
    await think();
    orange(['task', 'section', 'set', 'Plan', '--file', '-'], 'APPROACH: the smallest change\nTOUCHING: fleet/\n');
    await move('working', false);
  }
  if (status() === 'working') {
    await think();
    mkdirSync('fleet', { recursive: true });
    appendFileSync(join('fleet', `${taskId}.md`), `- work (${new Date().toISOString()})\n`);
    execFileSync('git', ['add', 'fleet'], { stdio: 'ignore' });
    execFileSync('git', ['commit', '-q', '-m', `fleet work for ${taskId}`], { stdio: 'ignore' });
    await think();
    orange(['task', 'section', 'set', 'Handoff', '--file', '-'], 'DONE: the change\nUNCERTAIN: none\n');
    await move('agent-review', true);
  }
  // Waiting for the review's verdict (notifications arrive as lines on stdin), as a real agent waits.
  for await (const line of createInterface({ input: process.stdin })) if (line.trim() !== '') log('notified');
}

async function reviewer() {
  await think();
  orange(['task', 'section', 'set', 'Review', '--file', '-'], 'Verdict: PASS\n\nDoes what the task asks.\n');
  await move('reviewing', true);
  await sleep(60_000);
}

await (role === 'reviewer' ? reviewer() : worker());
