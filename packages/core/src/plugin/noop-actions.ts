import { CORE_ACTIONS } from './core-actions.js';
import type { OrangePlugin } from './define.js';
import { classicWorkflow } from '../workflow/index.js';
import { defaultWorkflow } from '../workflow/index.js';
import type { WorkflowInput } from '../workflow/index.js';

/** Every action a workflow names, in its transitions and its create rules, each once. */
export function workflowActions(workflow: WorkflowInput): string[] {
  const named = [...workflow.transitions.flatMap((t) => t.hooks ?? []), ...Object.values(workflow.create).flatMap((c) => c.hooks ?? [])];
  return [...new Set(named)];
}

/** Every action the built-in workflows name that the core does not provide: a plugin's to provide. */
export function pluginActions(): string[] {
  const core = new Set(CORE_ACTIONS);
  return [...new Set([defaultWorkflow, classicWorkflow].flatMap(workflowActions))].filter((a) => !core.has(a));
}

export interface NoopActionsOptions {
  /** Actions left to another plugin (the one under test). */
  readonly except?: readonly string[];
  /** The tap and plugin name. */
  readonly name?: string;
}

/**
 * Every action the built-in workflows name that the core does not provide, as a no-op: to load
 * Orange without the plugins that really do that work (a plugin's own tests, benches). Derived
 * from the workflows, so it cannot fall behind them.
 */
export function noopActions(options: NoopActionsOptions = {}): OrangePlugin {
  const name = options.name ?? 'noop-actions';
  const except = new Set(options.except ?? []);
  const actions = pluginActions().filter((a) => !except.has(a));
  return {
    name,
    apply(orange) {
      for (const action of actions) orange.hooks.actions.for(action).tapPromise(name, async () => undefined);
    },
  };
}
