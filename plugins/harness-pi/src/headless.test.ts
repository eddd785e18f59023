import { newTaskMeta, type HeadlessRequest } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { piHeadlessArgv, piHeadlessResult } from './headless.js';

const request = (overrides: Partial<HeadlessRequest> = {}): HeadlessRequest => ({
  task: newTaskMeta({ id: 'q'.repeat(21), project: 'demo', branch: 'x', status: 'working' }),
  prompt: 'classify this',
  workspace: '/tmp/ws',
  model: null,
  phase: 'classify',
  resultFile: '/tmp/result.json',
  ...overrides,
});

const assistant = (text: string, cost: number, stopReason = 'stop', errorMessage?: string) =>
  JSON.stringify({
    type: 'message_end',
    message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text }], usage: { cost: { total: cost } }, stopReason, ...(errorMessage ? { errorMessage } : {}) },
  });

describe('pi headless run', () => {
  it('runs print mode with JSON events, the tier as --model, the prompt last', () => {
    expect(piHeadlessArgv({ bin: 'pi', extraArgs: [] }, request({ model: 'sonnet' }))).toEqual(['pi', '--mode', 'json', '--model', 'sonnet', '--print', 'classify this']);
    expect(piHeadlessArgv({ bin: '/opt/pi', provider: 'anthropic', extraArgs: ['--offline'] }, request({ prompt: '-x' }))).toEqual([
      '/opt/pi',
      '--mode',
      'json',
      '--provider',
      'anthropic',
      '--offline',
      '--print',
      ' -x',
    ]);
  });

  it('answers with the last assistant message, summing every message’s cost, and reads its JSON line', () => {
    const stdout = [
      JSON.stringify({ type: 'session', version: 3 }),
      JSON.stringify({ type: 'message_end', message: { role: 'user', content: [{ type: 'text', text: 'classify this' }] } }),
      assistant('looking', 0.01, 'toolUse'),
      assistant('done\n{"intent": "bugfix", "confidence": 0.9}', 0.02),
      JSON.stringify({ type: 'agent_end', messages: [] }),
    ].join('\n');
    const result = piHeadlessResult({ exitCode: 0, stdout, stderr: '', resultFile: null, model: 'sonnet' });
    expect(result).toEqual({ ok: true, output: 'done\n{"intent": "bugfix", "confidence": 0.9}', costUsd: 0.03, data: { intent: 'bugfix', confidence: 0.9 } });
  });

  it('fails with the model’s error, or with stderr when nothing was printed', () => {
    const errored = piHeadlessResult({ exitCode: 1, stdout: assistant('', 0, 'error', '429 rate limited'), stderr: '', resultFile: null, model: null });
    expect(errored).toMatchObject({ ok: false, output: '429 rate limited', costUsd: 0, data: {} });
    const silent = piHeadlessResult({ exitCode: 1, stdout: '', stderr: 'No API key found for the selected model.\n', resultFile: null, model: null });
    expect(silent).toMatchObject({ ok: false, output: 'No API key found for the selected model.' });
  });
});
