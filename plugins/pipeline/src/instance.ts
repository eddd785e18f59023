import { OrangeError, type Harness, type Orange, type Task } from '@orange/core';
import type { PipelineSettings } from './options.js';

/** What the pipeline plugin leaves on the Orange instance for the CLI's pipeline commands. */
export interface PipelineInstance {
  readonly settings: PipelineSettings;
  /** The harness running a task's phases headless, and its tier list. */
  headlessHarness(task: Task): Promise<{ harness: Harness; tiers: readonly string[] }>;
}

// A registered symbol, not a module-level WeakMap: a config that imports its own copy of this
// package must still be found by the CLI's copy.
const INSTANCE = Symbol.for('orange.plugin-pipeline');

/** The pipeline plugin loaded into `orange`, or E_NO_PROVIDER. */
export function pipelineOf(orange: Orange): PipelineInstance {
  const instance = (orange as unknown as Record<symbol, PipelineInstance | undefined>)[INSTANCE];
  if (!instance) throw new OrangeError('E_NO_PROVIDER', 'the pipeline plugin is not loaded (add pipeline() to the plugins in your orange config)');
  return instance;
}

/** Leaves the plugin's instance on `orange` (from the plugin's `apply`). */
export function setPipelineInstance(orange: Orange, instance: PipelineInstance): void {
  (orange as unknown as Record<symbol, PipelineInstance>)[INSTANCE] = instance;
}
