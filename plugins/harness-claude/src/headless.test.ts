import { newTaskMeta, type HeadlessRequest } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { claudeHeadlessArgv, claudeHeadlessResult } from './headless.js';

const request = (model: string | null): HeadlessRequest => ({
  task: newTaskMeta({ id: 'a'.repeat(21), project: 'demo', branch: 'b', status: 'executing' }),
  prompt: '-starts with a dash',
  workspace: '/tmp/ws',
  model,
  phase: 'implement',
  resultFile: '/tmp/r.json',
});

const run = (stdout: string, exitCode = 0) => ({ exitCode, stdout, stderr: '', resultFile: null, model: 'haiku' });

describe('claude headless run', () => {
  it('runs print mode with JSON output, the tier as --model and the prompt after --', () => {
    expect(claudeHeadlessArgv('claude', [], request('opus'))).toEqual([
      'claude', '-p', '--output-format', 'json', '--dangerously-skip-permissions', '--model', 'opus', '--', '-starts with a dash',
    ]);
    expect(claudeHeadlessArgv('claude', [], request(null))).not.toContain('--model');
  });

  it('reads the answer, the cost and the fields the agent ended with from the JSON result', () => {
    const printed = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done\n{"intent":"bugfix","confidence":0.9}', total_cost_usd: 0.042 });
    expect(claudeHeadlessResult(run(printed))).toEqual({ ok: true, output: 'done\n{"intent":"bugfix","confidence":0.9}', costUsd: 0.042, data: { intent: 'bugfix', confidence: 0.9 } });
  });

  it('reports an error result as failed but keeps its cost', () => {
    const printed = JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, result: 'ran out', total_cost_usd: 0.5 });
    expect(claudeHeadlessResult(run(printed, 1))).toMatchObject({ ok: false, costUsd: 0.5 });
  });

  it('reports a run that printed no result as failed with what it printed', () => {
    expect(claudeHeadlessResult({ exitCode: 1, stdout: '', stderr: 'Invalid API key\n', resultFile: null, model: null })).toEqual({ ok: false, output: 'Invalid API key', costUsd: 0, data: {} });
  });
});
