import { defaultWorkflow, pipelineWorkflow, type TaskMeta, type WorkflowInput } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { fakeRow } from '../test/fake-dashboard.js';
import { footerKeys, tableAction } from './key-map.js';

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
