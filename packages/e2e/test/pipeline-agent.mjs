#!/usr/bin/env node
// A scripted headless agent for pipeline tests: `pipeline-agent.mjs <phase> <model> <prompt>`. What it does
// for the n-th run of a phase is the n-th entry of that phase in the plan ($PIPELINE_PLAN, JSON):
// { "classify": [{ "intent": "bugfix", "confidence": 0.9, "cost": 0.01 }], "fix": [{ "ok": false }, "hang", { "ok": true }] }
// (a missing entry means { ok: true }; `write: FILE` writes a file, `commit: FILE` writes and commits it,
// `waitFor: FILE` finishes only once FILE exists). Every run is logged to $PIPELINE_CALLS with its model,
// prompt and $ORANGE_PROMPT / STATUS / PHASE / MODEL, after asking the real CLI for the task (so the run proves it can). Results go to
// $ORANGE_RESULT_FILE, the command harness's documented result file.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const [phase = '?', model = '', prompt = ''] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(process.env.PIPELINE_PLAN, 'utf8'));
const calls = process.env.PIPELINE_CALLS;
const before = existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
const index = before.filter((c) => c.phase === phase).length;
const entry = (plan[phase] ?? [])[index] ?? { ok: true };
let seen = null;
try {
  seen = JSON.parse(execFileSync('orange', ['task', 'show', process.env.ORANGE_TASK_ID, '--json'], { encoding: 'utf8' })).task.status;
} catch (error) {
  seen = `error: ${error.message}`;
}
// What its environment says about the run, to compare with its command line.
const { ORANGE_PROMPT, ORANGE_STATUS, ORANGE_PHASE, ORANGE_MODEL } = process.env;
const env = { prompt: ORANGE_PROMPT, status: ORANGE_STATUS, phase: ORANGE_PHASE, model: ORANGE_MODEL };
appendFileSync(calls, `${JSON.stringify({ phase, model, prompt, seen, env, pid: process.pid, entry })}\n`);
if (entry === 'hang') {
  // Killed by the test (cancel, SIGKILL); never finishes on its own.
  setInterval(() => undefined, 1000);
} else {
  const { ok = true, cost = 0.01, write, commit, waitFor, ...data } = entry;
  // Finishes only once the file appears (a test makes it at the moment it wants the run to end).
  if (waitFor) while (!existsSync(waitFor)) await new Promise((resolve) => setTimeout(resolve, 20));
  if (write) writeFileSync(write, 'fixed\n');
  // A run that commits its work, as a real agent does: the branch then holds something to merge.
  if (commit) {
    writeFileSync(commit, 'fixed\n');
    execFileSync('git', ['add', commit]);
    execFileSync('git', ['commit', '-q', '-m', `${phase} for task ${process.env.ORANGE_TASK_ID}`]);
  }
  writeFileSync(process.env.ORANGE_RESULT_FILE, JSON.stringify({ ok, cost_usd: cost, output: ok ? `${phase} done` : `${phase} failed on ${model}`, ...data }));
}
