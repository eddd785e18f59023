import { newTaskMeta, type HeadlessRequest } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { opencodeHeadlessArgv, opencodeHeadlessResult } from './headless.js';

const request = (overrides: Partial<HeadlessRequest> = {}): HeadlessRequest => ({
  task: newTaskMeta({ id: 'r'.repeat(21), project: 'demo', branch: 'x', status: 'working' }),
  prompt: 'classify this',
  workspace: '/tmp/ws',
  model: null,
  phase: 'classify',
  resultFile: '/tmp/result.json',
  ...overrides,
});

const event = (type: string, part: Record<string, unknown> = {}) => JSON.stringify({ type, timestamp: 1, sessionID: 'ses_1', part });

describe('opencode headless run', () => {
  it('runs opencode run with JSON events and --auto, the tier as --model, the prompt after --', () => {
    expect(opencodeHeadlessArgv({ bin: 'opencode', extraArgs: [] }, request({ model: 'anthropic/claude-haiku-4-5' }))).toEqual([
      'opencode',
      'run',
      '--format',
      'json',
      '--auto',
      '--model',
      'anthropic/claude-haiku-4-5',
      '--',
      'classify this',
    ]);
    expect(opencodeHeadlessArgv({ bin: 'oc', agent: 'build', extraArgs: ['--pure'] }, request({ prompt: '--help' })).slice(1)).toEqual(['run', '--format', 'json', '--auto', '--agent', 'build', '--pure', '--', '--help']);
  });

  it('answers with the last step’s text, summing every step’s cost, and reads its JSON line', () => {
    const stdout = [
      event('step_start'),
      event('text', { type: 'text', text: 'Let me look.' }),
      event('tool_use', { tool: 'read' }),
      event('step_finish', { reason: 'tool-calls', cost: 0.004 }),
      event('step_start'),
      event('text', { type: 'text', text: 'Done.\n{"intent":"feature","confidence":0.7}' }),
      event('step_finish', { reason: 'stop', cost: 0.006 }),
    ].join('\n');
    const result = opencodeHeadlessResult({ exitCode: 0, stdout, stderr: '', resultFile: null, model: null });
    expect(result).toEqual({ ok: true, output: 'Done.\n{"intent":"feature","confidence":0.7}', costUsd: 0.01, data: { intent: 'feature', confidence: 0.7 } });
  });

  it('fails with the error event’s message', () => {
    const stdout = JSON.stringify({ type: 'error', timestamp: 1, sessionID: 'ses_1', error: { name: 'ProviderModelNotFoundError', data: { message: 'Model not found: x/y' } } });
    expect(opencodeHeadlessResult({ exitCode: 1, stdout, stderr: '', resultFile: null, model: 'x/y' })).toEqual({
      ok: false,
      output: 'ProviderModelNotFoundError: Model not found: x/y',
      costUsd: 0,
      data: {},
    });
    expect(opencodeHeadlessResult({ exitCode: 2, stdout: '', stderr: '', resultFile: null, model: null }).output).toBe('opencode exited with code 2');
  });
});
