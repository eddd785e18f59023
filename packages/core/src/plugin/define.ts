import type { z } from 'zod';
import type { ConfigInput } from '../config/index.js';
import { OrangeError } from '../errors/index.js';
import type { Orange } from './orange.js';

/**
 * A plugin: a name and a function that taps the bus and fills slots.
 * Usually returned by a factory taking validated options: `tmux({ ... })`.
 */
export interface OrangePlugin {
  readonly name: string;
  apply(orange: Orange): void | Promise<void>;
}

/** Typed identity for writing a plugin. */
export function definePlugin(plugin: OrangePlugin): OrangePlugin {
  return plugin;
}

/** What a config file exports: its plugins, harnesses, workflows, pool size, poll interval, log level, notifications. */
export type OrangeConfigInput = ConfigInput<OrangePlugin>;

/** Typed identity for `orange.config.ts`. */
export function defineConfig(config: OrangeConfigInput): OrangeConfigInput {
  return config;
}

/**
 * Parses a plugin's options with its zod schema; an error names the plugin and the field.
 * Use it first thing in a plugin factory.
 */
export function parsePluginOptions<S extends z.ZodType>(plugin: string, schema: S, options: unknown): z.output<S> {
  const result = schema.safeParse(options ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    const field = issue.keys.join(', ');
    throw new OrangeError('E_PLUGIN_OPTIONS', `plugin ${plugin}: unknown option "${field}"`, { plugin, field });
  }
  const field = issue && issue.path.length ? issue.path.join('.') : '(options)';
  throw new OrangeError('E_PLUGIN_OPTIONS', `plugin ${plugin}: option "${field}" ${issue?.message ?? 'is invalid'}`, {
    plugin,
    field,
  });
}
