import { newTaskMeta, type HeadlessRequest } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { geminiHeadlessArgv, geminiHeadlessResult } from './headless.js';

const request = (overrides: Partial<HeadlessRequest> = {}): HeadlessRequest => ({
  task: newTaskMeta({ id: 's'.repeat(21), project: 'demo', branch: 'x', status: 'working' }),
  prompt: 'classify this',
  workspace: '/tmp/ws',
  model: null,
  phase: 'classify',
  resultFile: '/tmp/result.json',
  ...overrides,
});

describe('gemini headless run', () => {
  it('runs --prompt with JSON output in yolo mode, the tier as --model, the prompt joined to its flag', () => {
    expect(geminiHeadlessArgv({ bin: 'gemini', extraArgs: [] }, request({ model: 'gemini-2.5-flash' }))).toEqual([
      'gemini',
      '--skip-trust',
      '--approval-mode',
      'yolo',
      '--output-format',
      'json',
      '--model',
      'gemini-2.5-flash',
      '--prompt=classify this',
    ]);
    expect(geminiHeadlessArgv({ bin: 'gemini', extraArgs: ['--debug'] }, request({ prompt: '--version' })).slice(-2)).toEqual(['--debug', '--prompt=--version']);
  });

  it('answers with the response and reads its JSON line; the cost is unknown', () => {
    const stdout = JSON.stringify({ session_id: 'x', response: 'ok\n{"intent":"docs","confidence":1}', stats: { models: {} } }, null, 2);
    expect(geminiHeadlessResult({ exitCode: 0, stdout, stderr: 'YOLO mode is enabled.\n', resultFile: null, model: null })).toEqual({
      ok: true,
      output: 'ok\n{"intent":"docs","confidence":1}',
      costUsd: 0,
      data: { intent: 'docs', confidence: 1 },
    });
  });

  it('fails with the error the CLI printed on stderr after its notices', () => {
    const stderr = `YOLO mode is enabled. All tool calls will be automatically approved.\n${JSON.stringify({ session_id: 'x', error: { type: 'Error', message: 'Please set an Auth method', code: 41 } }, null, 2)}\n`;
    expect(geminiHeadlessResult({ exitCode: 41, stdout: '', stderr, resultFile: null, model: null })).toEqual({ ok: false, output: 'Please set an Auth method', costUsd: 0, data: {} });
    expect(geminiHeadlessResult({ exitCode: 1, stdout: '', stderr: '', resultFile: null, model: null }).output).toBe('gemini exited with code 1');
  });
});
