import { newTaskMeta } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { codexHeadlessArgv, codexHeadlessResult } from './headless.js';

const lines = (...events: object[]) => events.map((e) => JSON.stringify(e)).join('\n');

describe('codex headless run', () => {
  it('runs codex exec --json with the tier as --model and the prompt after --', () => {
    const task = newTaskMeta({ id: 'a'.repeat(21), project: 'demo', branch: 'b', status: 'executing' });
    expect(codexHeadlessArgv('codex', [], { task, prompt: 'go', workspace: '/w', model: 'gpt-5', phase: 'fix', resultFile: '/r' })).toEqual([
      'codex', 'exec', '--json', '--dangerously-bypass-approvals-and-sandbox', '--model', 'gpt-5', '--', 'go',
    ]);
  });

  it('prices the reported token usage with the configured table', () => {
    const stdout = lines(
      { type: 'thread.started', thread_id: 't' },
      { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 'fixed\n{"confidence":0.7}' } },
      { type: 'turn.completed', usage: { input_tokens: 1_000_000, cached_input_tokens: 500_000, output_tokens: 100_000 } },
    );
    const result = codexHeadlessResult({ exitCode: 0, stdout, stderr: '', resultFile: null, model: 'm' }, { m: { input: 2, cachedInput: 0.5, output: 10 } });
    expect(result).toEqual({ ok: true, output: 'fixed\n{"confidence":0.7}', costUsd: 1 + 0.25 + 1, data: { confidence: 0.7 } });
  });

  it('costs nothing for a model missing from the price table', () => {
    const stdout = lines({ type: 'turn.completed', usage: { input_tokens: 10, output_tokens: 10 } });
    expect(codexHeadlessResult({ exitCode: 0, stdout, stderr: '', resultFile: null, model: 'x' }, {}).costUsd).toBe(0);
  });

  it('reports a failed turn as failed with its message', () => {
    const stdout = lines({ type: 'turn.failed', error: { message: 'rate limited' } });
    expect(codexHeadlessResult({ exitCode: 1, stdout, stderr: '', resultFile: null, model: null }, {})).toMatchObject({ ok: false, output: 'rate limited' });
  });
});
