#!/usr/bin/env node
// The demo's scripted headless agent for the pipeline workflow:
// `pipeline-agent.mjs <phase> <model> <prompt>`. The task's context (inside the prompt) scripts it:
//   agent.intent: bugfix 0.9        what the classifier answers
//   agent.fix: fail,fail,ok         the n-th run of phase "fix" fails or succeeds (default: ok)
//   agent.cost: 0.02                what each run reports it cost (USD)
// It reports through the command harness's result file ($ORANGE_RESULT_FILE) and, when it
// succeeds at a phase, commits a note about it in the worktree.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';

const [phase = '?', model = '', prompt = ''] = process.argv.slice(2);
const directive = (name) => new RegExp(`^agent\\.${name}:\\s*(.+)$`, 'm').exec(prompt)?.[1]?.trim();
const resultFile = process.env.ORANGE_RESULT_FILE;
const counter = join(dirname(resultFile), 'demo-agent-runs.txt');
const before = existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').filter((l) => l === phase).length : 0;
appendFileSync(counter, `${phase}\n`);
const cost = Number(directive('cost') ?? '0.02');
const pace = Number(directive('pace') ?? '400');
await new Promise((r) => setTimeout(r, pace));

if (phase === 'classify') {
  const [intent = 'feature', confidence = '0.9'] = (directive('intent') ?? '').split(/\s+/);
  writeFileSync(resultFile, JSON.stringify({ ok: true, cost_usd: cost, output: 'classified', intent, confidence: Number(confidence) }));
} else {
  const outcomes = (directive(phase) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const ok = (outcomes[before] ?? 'ok') !== 'fail';
  if (ok) {
    // One file per task: the demo's person merges every task into main, one after another.
    const notes = `PIPELINE-${process.env.ORANGE_TASK_ID ?? 'task'}.md`;
    appendFileSync(notes, `- ${phase} (${model || 'default model'})\n`);
    execFileSync('git', ['add', notes]);
    execFileSync('git', ['commit', '-q', '-m', `${phase} on ${model || 'default model'}`]);
  }
  writeFileSync(resultFile, JSON.stringify({ ok, cost_usd: cost, output: ok ? `${phase} done on ${model}` : `${phase} failed on ${model}` }));
}
