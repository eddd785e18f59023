/**
 * The pipeline workflow is the core's (built in, so that `orange workflow show pipeline` needs no
 * plugin), but its gates are this plugin's: the gates here are read from what the plugin
 * registers on a real Orange, not from the workflow they are checked against.
 */
import { builtinGates, pipelineWorkflow, Workflow } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineBox, type PipelineBox } from '../test/pipeline-box.js';

let box: PipelineBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

describe('the gates of the pipeline workflow', () => {
  it('are exactly the gates the pipeline plugin registers: the workflow loads against those alone, and none is left unused', async () => {
    box = await pipelineBox();
    // The box's other plugin (stand-ins for the runtime and workspace actions) registers no gate.
    const registered = [...box.orange.gates.keys()].filter((name) => !(name in builtinGates));
    const named = [...new Set(pipelineWorkflow.transitions.flatMap((t) => (t.gate ? [t.gate] : [])))];
    expect(() => Workflow.load(pipelineWorkflow, { gates: new Set(registered), actions: box!.orange.providedActions() })).not.toThrow();
    expect(registered.sort()).toEqual(named.sort());
  });
});
