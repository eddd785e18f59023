import { defaultWorkflow, pipelineWorkflow, type TaskMeta, type WorkflowInput } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { fakeRow } from '../test/fake-dashboard.js';
import { footerKeys, helpKeys, tableAction } from './key-map.js';

const enter = (row: ReturnType<typeof fakeRow>) => footerKeys(row).find((k) => k.key === '⏎')?.label;

describe('Enter', () => {
  it('respawns a dead agent, and on a pipeline task says resume: the engine restarts its driver from the checkpoint', () => {
    const working = fakeRow({ status: 'working' });
    expect(tableAction('', { return: true }, working)).toBe('respawn');
    expect(enter(working)).toBe('respawn');
    const pipeline = fakeRow({ status: 'executing', pipeline_phases: 'reproduce,fix' } as Partial<TaskMeta> & { status: string }, {}, pipelineWorkflow);
    expect(tableAction('', { return: true }, pipeline)).toBe('respawn');
    expect(enter(pipeline)).toBe('resume');
    const live = fakeRow({ status: 'executing', pipeline_phases: 'fix' } as Partial<TaskMeta> & { status: string }, { alive: ['worker'] }, pipelineWorkflow);
    expect(enter(live)).toBe('attach');
  });
});

describe('w', () => {
  it('attaches to a live agent, as Enter does, and does nothing where Enter would not attach', () => {
    const live = fakeRow({ status: 'working', worker_spawn: 'S1' }, { alive: ['worker'], liveness: 'alive' });
    expect(tableAction('w', {}, live)).toBe('attach');
    expect(tableAction('w', {}, fakeRow({ status: 'working', worker_spawn: 'S1' }, { liveness: 'dead' }))).toBeNull();
    expect(tableAction('w', {}, fakeRow({ status: 'pending' }))).toBeNull();
  });
});

describe('x', () => {
  const x = (row: ReturnType<typeof fakeRow>) => footerKeys(row).find((k) => k.key === 'x')?.label;
  const pipelineRow = (status: string) => fakeRow({ status, pipeline_phases: 'fix' } as Partial<TaskMeta> & { status: string }, {}, pipelineWorkflow);

  it('is offered wherever task cancel would be accepted, saying what it does: cancel, stop a pipeline task, abandon a stopped one', () => {
    expect(x(fakeRow({ status: 'working' }))).toBe('cancel');
    expect(x(fakeRow({ status: 'pending' }))).toBe('cancel');
    expect(x(fakeRow({ status: 'done' }))).toBeUndefined();
    for (const status of ['created', 'classifying', 'awaiting_clarification', 'executing', 'verifying']) expect([status, x(pipelineRow(status))]).toEqual([status, 'stop']);
    expect(x(pipelineRow('stopped'))).toBe('abandon');
    expect(x(pipelineRow('failed'))).toBeUndefined();
    expect(x(pipelineRow('completed'))).toBe('abandon');
    // Still mapped where it does not apply: the engine's refusal is shown instead of nothing.
    expect(tableAction('x', {}, pipelineRow('failed'))).toBe('cancel');
  });

  it("follows a custom workflow's transitions, not a list of statuses: no x where it has no move into cancelled", () => {
    const custom: WorkflowInput = {
      ...defaultWorkflow,
      name: 'no-cancel-in-review',
      transitions: defaultWorkflow.transitions.filter((t) => !(t.from === 'reviewing' && t.to === 'cancelled')),
    };
    expect(x(fakeRow({ status: 'reviewing' }))).toBe('cancel');
    expect(x(fakeRow({ status: 'reviewing' }, {}, custom))).toBeUndefined();
    expect(x(fakeRow({ status: 'working' }, {}, custom))).toBe('cancel');
  });
});

describe('a', () => {
  const a = (row: ReturnType<typeof fakeRow>) => footerKeys(row).find((k) => k.key === 'a')?.label;
  const pipelineRow = (status: string) => fakeRow({ status }, {}, pipelineWorkflow);

  it('is offered on a pipeline task awaiting clarification, and on a task in clarification whose worker waits for the answer in its session', () => {
    expect(a(pipelineRow('awaiting_clarification'))).toBe('answer');
    expect(a(fakeRow({ status: 'clarification', worker_spawn: 'S1' }, { alive: ['worker'], liveness: 'alive' }))).toBe('answer');
  });

  it('is not offered where nothing waits for an answer: other statuses, and clarification with no worker running', () => {
    for (const status of ['created', 'classifying', 'executing', 'stopped', 'completed', 'failed']) expect([status, a(pipelineRow(status))]).toEqual([status, undefined]);
    for (const status of ['pending', 'planning', 'working', 'reviewing', 'stuck', 'done']) expect([status, a(fakeRow({ status }))]).toEqual([status, undefined]);
    expect(a(fakeRow({ status: 'clarification' }, { liveness: 'dead' }))).toBeUndefined();
    // Still mapped where it does not apply: the dashboard says why instead of doing nothing.
    expect(tableAction('a', {}, fakeRow({ status: 'working' }))).toBe('answer');
  });

  it('follows the workflow: no a on a task awaiting clarification whose workflow gives the person no move to classifying', () => {
    const custom: WorkflowInput = {
      ...pipelineWorkflow,
      name: 'no-clarify',
      transitions: pipelineWorkflow.transitions.filter((t) => !(t.from === 'awaiting_clarification' && t.to === 'classifying')),
    };
    expect(a(fakeRow({ status: 'awaiting_clarification' }, {}, custom))).toBeUndefined();
  });

  it('is in the ? help', () => {
    expect(helpKeys().find((k) => k.key === 'a')?.label).toMatch(/^answer ## Questions/);
  });
});
