import { pipelineWorkflow, type TaskMeta } from '@orange/core';
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
