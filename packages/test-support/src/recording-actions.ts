import { pluginActions, type ActionContext, type Orange, type OrangePlugin } from '@orange/core';

export interface RecordingActionsOptions {
  /** The plugin's name, which its taps carry too (traces and errors say who ran). */
  readonly name?: string;
  /** The actions it stands in for (default: every action the built-in workflows name beyond the core's). */
  readonly actions?: readonly string[];
  /** Where each run is recorded (default: a new list, the plugin's `calls`). */
  readonly calls?: string[];
  /** What a run is recorded as (default: the action's name). */
  readonly entry?: (action: string, ctx: ActionContext) => string;
  /** What an action does once recorded (`acquire_workspace` giving the task a folder, …); these actions are stood in for too. */
  readonly effects?: Readonly<Record<string, (ctx: ActionContext) => Promise<unknown> | unknown>>;
  /** What else the plugin does when applied: registering a harness, a notifier, a runtime. */
  readonly apply?: (orange: Orange) => void;
}

/**
 * A plugin that stands in for the plugins a test leaves out (tmux, the worktree pool, github):
 * each of its actions records its run in `calls`, in the order the engine ran them, then does
 * its effect, if it has one, and nothing else.
 */
export function recordingActions(options: RecordingActionsOptions = {}): OrangePlugin & { readonly calls: string[] } {
  const name = options.name ?? 'recording-actions';
  const calls = options.calls ?? [];
  const effects = options.effects ?? {};
  const actions = new Set([...(options.actions ?? pluginActions()), ...Object.keys(effects)]);
  return {
    name,
    calls,
    apply(orange) {
      for (const action of actions) {
        orange.hooks.actions.for(action).tapPromise(name, async (ctx) => {
          calls.push(options.entry ? options.entry(action, ctx) : action);
          await effects[action]?.(ctx);
        });
      }
      options.apply?.(orange);
    },
  };
}
