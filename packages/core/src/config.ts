import { isAbsolute, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { cosmiconfig as cosmiconfigFn } from 'cosmiconfig';
import { OrangeError } from './errors.js';
import { LOG_LEVELS } from './log.js';
import type { OrangePlugin } from './plugin.js';
import type { OrangePaths } from './store/paths.js';
import { ProjectStore } from './store/projects.js';
import { WorkflowSchema, type WorkflowInput } from './workflow/definition.js';

const PluginSchema = z.custom<OrangePlugin>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as OrangePlugin).name === 'string' &&
    typeof (value as OrangePlugin).apply === 'function',
  { message: 'expected a plugin ({ name, apply }); did you forget to call the factory, e.g. tmux()?' },
);

/** The `orange.config.ts` schema. */
export const ConfigSchema = z
  .object({
    /** Plugins added to the built-in ones; a plugin with a built-in's name replaces it. */
    plugins: z.array(PluginSchema).default([]),
    /** Set false to start from no built-in plugins at all. */
    defaults: z.boolean().default(true),
    /** Harness for workers when a task names none (else the first installed). */
    harness: z.string().min(1).optional(),
    /** Harness for reviewers when a task names none (else `harness`). */
    reviewHarness: z.string().min(1).optional(),
    /** Workflow for projects that name none: a built-in name or a definition. */
    workflow: z.union([z.string().min(1), WorkflowSchema]).default('default'),
    /** Extra named workflows that projects can select. */
    workflows: z.array(WorkflowSchema).default([]),
    /** Worktrees per project when `project add` is not told. */
    poolSize: z.number().int().positive().max(64).default(2),
    /** Exit-monitoring backstop poll, in milliseconds. */
    pollIntervalMs: z.number().int().min(200).default(30_000),
    logLevel: z.enum(LOG_LEVELS).default('info'),
  })
  .strict();

/** What a config file exports. */
export type OrangeConfigInput = Omit<z.input<typeof ConfigSchema>, 'workflow' | 'workflows' | 'plugins'> & {
  plugins?: OrangePlugin[];
  workflow?: string | WorkflowInput;
  workflows?: WorkflowInput[];
};
/** The config after defaults. */
export type OrangeConfig = z.output<typeof ConfigSchema>;

/** Typed identity for `orange.config.ts`. */
export function defineConfig(config: OrangeConfigInput): OrangeConfigInput {
  return config;
}

/** Validates a loaded config object; errors name the file, the field and what was expected. */
export function parseConfig(raw: unknown, file: string | null): OrangeConfig {
  const result = ConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length ? issue.path.join('.') : '(root)';
  const where = file ?? 'built-in config';
  let message = issue?.message ?? 'is invalid';
  if (issue?.code === 'unrecognized_keys') message = `has unknown option ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  throw new OrangeError('E_CONFIG', `${where}: ${field === '(root)' ? '' : `field "${field}" `}${message}`.replace(': has', ' has'), {
    file: where,
    field,
  });
}

/** Places searched from the working directory upward, in order. */
export const CONFIG_SEARCH_PLACES = [
  'package.json',
  '.orangerc',
  '.orangerc.json',
  '.orangerc.yaml',
  '.orangerc.yml',
  '.orangerc.js',
  '.orangerc.mjs',
  '.orangerc.ts',
  'orange.config.ts',
  'orange.config.mts',
  'orange.config.js',
  'orange.config.mjs',
];

export interface LoadedConfig {
  readonly config: OrangeConfig;
  /** The file it came from, or null for the built-in default. */
  readonly file: string | null;
}

/**
 * Finds and loads the config from `cwd` upward with cosmiconfig. TypeScript configs go through
 * jiti with its file cache: compiling with `typescript` on every CLI call costs ~0.6 s.
 */
export async function loadConfig(cwd: string = process.cwd(), paths?: OrangePaths): Promise<LoadedConfig> {
  const start = paths ? await configSearchStart(cwd, paths) : cwd;
  return loadConfigFrom(start);
}

/**
 * Where the config search starts. Agents run in worktrees under `$ORANGE_HOME/workspaces`, which
 * are not inside the repository; they must see the same config as the user in the repository
 * (including an uncommitted one), so a worktree maps to its project's path.
 */
export async function configSearchStart(cwd: string, paths: OrangePaths): Promise<string> {
  const inside = relative(paths.workspacesDir, cwd);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return cwd;
  const match = /^(.+)--\d+$/.exec(inside.split(sep)[0] ?? '');
  if (!match) return cwd;
  const project = (await new ProjectStore(paths).list().catch(() => [])).find((p) => p.name === match[1]);
  return project?.path ?? cwd;
}

async function loadConfigFrom(cwd: string): Promise<LoadedConfig> {
  // cosmiconfig is CommonJS: Node's import() gives its exports by name, a bundle that puts it in
  // a chunk of its own (the CLI's esbuild build) gives them as `default` only.
  const loaded: { cosmiconfig?: typeof cosmiconfigFn; default?: { cosmiconfig: typeof cosmiconfigFn } } = await import('cosmiconfig');
  const cosmiconfig = (loaded.cosmiconfig ?? loaded.default?.cosmiconfig) as typeof cosmiconfigFn;
  const loadTypeScript = async (file: string) => {
    // jiti is loaded only for a TypeScript config. tryNative: a config's imports (@orange/core,
    // plugins) load natively, so they are the very module instances the CLI uses; only the
    // TypeScript file itself goes through jiti's file cache.
    const { createJiti } = await import('jiti');
    const jiti = createJiti(import.meta.url, { fsCache: true, moduleCache: false, interopDefault: true, tryNative: true });
    return jiti.import<unknown>(file, { default: true });
  };
  const loadJavaScript = async (file: string) => {
    const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    return mod.default ?? mod;
  };
  const explorer = cosmiconfig('orange', {
    searchPlaces: CONFIG_SEARCH_PLACES,
    searchStrategy: 'global',
    loaders: { '.ts': loadTypeScript, '.mts': loadTypeScript, '.js': loadJavaScript, '.mjs': loadJavaScript },
    cache: false,
  });
  let found: { config: unknown; filepath: string; isEmpty?: boolean } | null;
  try {
    found = await explorer.search(cwd);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new OrangeError('E_CONFIG', `could not load the Orange config: ${reason}`);
  }
  if (!found || found.isEmpty) return { config: parseConfig({}, null), file: null };
  return { config: parseConfig(found.config, found.filepath), file: found.filepath };
}

