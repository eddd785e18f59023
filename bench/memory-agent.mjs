#!/usr/bin/env node
// The memory bench's scripted headless agent: `memory-agent.mjs <phase> <model> <prompt>`. It
// classifies every task as a bugfix, and its phases fail on haiku and pass on any stronger tier,
// as a real model might for a kind of task too hard for the cheapest one. Each run reports what
// it cost at its tier's price (a fixed price per run, USD) in the command harness's result file
// ($ORANGE_RESULT_FILE). A passing phase commits a file of its own (the branch holds work to merge);
// the last one writes a lessons note into TASK.md, as the phase prompt asks. Every run is logged to
// $MEMORY_BENCH_CALLS. Node builtins only.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const PRICES = { haiku: 0.01, sonnet: 0.03, opus: 0.15 };
const [phase = '?', model = '', prompt = ''] = process.argv.slice(2);
const task = process.env.ORANGE_TASK_ID ?? 'task';
const cost = PRICES[model] ?? PRICES.sonnet;
const remembered = prompt.includes("Orange's memory");
let result;
if (phase === 'classify') {
  result = { ok: true, cost_usd: cost, output: 'a bugfix', intent: 'bugfix', confidence: 0.9 };
} else {
  const ok = model !== 'haiku';
  if (ok) {
    const file = `${phase}-${task}.txt`;
    writeFileSync(file, `${phase} on ${model}\n`);
    execFileSync('git', ['add', file]);
    execFileSync('git', ['commit', '-q', '-m', `${phase} on ${model}`]);
    // As the phase prompt asks: a lessons note in TASK.md (the worktree's link to the task file).
    if (phase === 'fix') {
      const body = readFileSync('TASK.md', 'utf8');
      if (!body.includes('\n## Lessons')) writeFileSync('TASK.md', `${body.trimEnd()}\n\n## Lessons\nParser crashes are beyond haiku (reproduce failed there twice); sonnet fixed them.\n`);
    }
  }
  result = { ok, cost_usd: cost, output: ok ? `${phase} done on ${model}` : `${phase} failed on ${model}: the parser state machine is beyond this model` };
}
writeFileSync(process.env.ORANGE_RESULT_FILE, JSON.stringify(result));
appendFileSync(process.env.MEMORY_BENCH_CALLS, `${JSON.stringify({ task, phase, model, ok: result.ok, cost, remembered })}\n`);
