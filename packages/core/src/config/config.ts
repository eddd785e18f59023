import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { z } from 'zod';
import type { cosmiconfig as cosmiconfigFn } from 'cosmiconfig';
import { loadJsonConfig, loadModuleConfig, loadYamlConfig, type SharedModules } from './loaders.js';
import { isOrangeError, OrangeError } from '../errors/index.js';
import { LOG_LEVELS } from '../log/index.js';
import { NotificationsConfigSchema } from './notifications-config.js';
import type { OrangePaths } from '../store/index.js';
import { ProjectStore } from '../store/index.js';
import { WorkflowSchema, type WorkflowInput } from '../workflow/index.js';

/**
 * A plugin as the config holds it: a name and an `apply`. The plugin room, above this one, gives it
 * its full type (`OrangePlugin`); here only its shape is checked.
 */
export interface PluginEntry {
  readonly name: string;
  apply(orange: never): unknown;
}

const PluginSchema = z.custom<PluginEntry>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PluginEntry).name === 'string' &&
    typeof (value as PluginEntry).apply === 'function',
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
    /** Routing of notifications to notifiers, their time limit, stale-task detection (docs/notifications.md). */
    notifications: NotificationsConfigSchema.prefault({}),
  })
  .strict();

/** What a config file exports, with its plugins of type `Plugin` (`OrangeConfigInput` in the plugin room). */
export type ConfigInput<Plugin = PluginEntry> = Omit<z.input<typeof ConfigSchema>, 'workflow' | 'workflows' | 'plugins'> & {
  plugins?: Plugin[];
  workflow?: string | WorkflowInput;
  workflows?: WorkflowInput[];
};
/** The config after defaults. */
export type OrangeConfig = z.output<typeof ConfigSchema>;

/** Validates a loaded config object; errors name the file, the field and what was expected. */
export function parseConfig(raw: unknown, file: string | null): OrangeConfig {
  const result = ConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  // Every problem at once (an inline workflow with two mistakes names both), the first one's field in the details.
  const issues = result.error.issues.flatMap(innermostIssues);
  const where = file ?? 'built-in config';
  const fieldOf = (issue: z.core.$ZodIssue | undefined) => (issue && issue.path.length ? issue.path.join('.') : '(root)');
  const sentence = (issue: z.core.$ZodIssue) => {
    const field = fieldOf(issue);
    const message = issue.code === 'unrecognized_keys' ? `has unknown option ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
    return `${field === '(root)' ? '' : `field "${field}" `}${message}`;
  };
  const text = issues.length > 0 ? issues.map(sentence).join('; ') : 'is invalid';
  throw new OrangeError('E_CONFIG', `${where}: ${text}`.replace(': has', ' has'), {
    file: where,
    field: fieldOf(issues[0]),
    ...(issues.length > 1 ? { fields: issues.map(fieldOf) } : {}),
  });
}

/**
 * zod reports a value that fits no branch of a union as a bare "Invalid input". When exactly one
 * branch accepted the value's type (an object for `workflow: string | definition`), that branch's
 * own issue is the one that explains, with its full path.
 */
function innermostIssues(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  const typed = issue.errors.filter((branch) => {
    const first = branch[0];
    return first !== undefined && !(first.code === 'invalid_type' && first.path.length === 0);
  });
  const branch = typed.length === 1 ? typed[0] : undefined;
  if (!branch || branch.length === 0) return [issue];
  return branch.flatMap((inner) => innermostIssues({ ...inner, path: [...issue.path, ...inner.path] }));
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

/**
 * The config files in `dir` itself, in search order, without running any: the first is the one a
 * search reaching `dir` loads. `package.json` counts only with an `orange` property, and an empty
 * file not at all (the search passes over both).
 */
export async function configFilesIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const place of CONFIG_SEARCH_PLACES) {
    const file = join(dir, place);
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null || text.trim() === '') continue;
    if (place === 'package.json' && !hasOrangeProperty(text)) continue;
    found.push(file);
  }
  return found;
}

function hasOrangeProperty(packageJson: string): boolean {
  try {
    const parsed = JSON.parse(packageJson) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'orange' in parsed;
  } catch {
    return false;
  }
}

export interface LoadedConfig {
  readonly config: OrangeConfig;
  /** The file it came from, or null for the built-in default. */
  readonly file: string | null;
}

/**
 * Finds and loads the config from `cwd` upward with cosmiconfig. TypeScript and JavaScript configs
 * go through jiti with its file cache: compiling with `typescript` on every CLI call costs ~0.6 s. Always
 * ends with an answer: a config, or one E_CONFIG line (also when loading outlasts
 * `ORANGE_CONFIG_TIMEOUT_MS`).
 */
export async function loadConfig(cwd: string = process.cwd(), paths?: OrangePaths, options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const start = paths ? await configSearchStart(cwd, paths) : cwd;
  return loadConfigFrom(start, options.modules ?? {});
}

export interface LoadConfigOptions {
  /**
   * What the config's own imports of these specifiers get instead of a module found on disk (the
   * CLI passes its @orange/core, plugins and zod); a specifier not listed resolves as usual.
   */
  readonly modules?: SharedModules;
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

/**
 * How long loading the config may take before it is given up, unless `ORANGE_CONFIG_TIMEOUT_MS` says.
 * Generous: a busy machine (a CI box running agents and tests) can take seconds to compile a
 * TypeScript config, and only a config that never finishes should be refused.
 */
export const CONFIG_TIMEOUT_MS = 30_000;

/** The config loading time limit from `ORANGE_CONFIG_TIMEOUT_MS`; E_CONFIG when that is not a positive integer. */
export function configTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.ORANGE_CONFIG_TIMEOUT_MS?.trim();
  if (text === undefined || text === '') return CONFIG_TIMEOUT_MS;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new OrangeError('E_CONFIG', `ORANGE_CONFIG_TIMEOUT_MS must be a positive whole number of milliseconds, not ${JSON.stringify(text.slice(0, 40))}`);
  }
  return ms;
}

async function loadConfigFrom(cwd: string, modules: SharedModules): Promise<LoadedConfig> {
  const timeoutMs = configTimeoutMs();
  // cosmiconfig is CommonJS: Node's import() gives its exports by name, a bundle that puts it in
  // a chunk of its own (the CLI's esbuild build) gives them as `default` only.
  const loaded: { cosmiconfig?: typeof cosmiconfigFn; default?: { cosmiconfig: typeof cosmiconfigFn } } = await import('cosmiconfig');
  const cosmiconfig = (loaded.cosmiconfig ?? loaded.default?.cosmiconfig) as typeof cosmiconfigFn;
  // The file being loaded, for the time-limit message (cosmiconfig may try several places).
  let loading: string | null = null;
  const track =
    <A extends unknown[]>(load: (file: string, ...rest: A) => unknown) =>
    (file: string, ...rest: A) => {
      loading = file;
      return load(file, ...rest);
    };
  const loadModule = (file: string) => loadModuleConfig(file, modules);
  const explorer = cosmiconfig('orange', {
    searchPlaces: CONFIG_SEARCH_PLACES,
    searchStrategy: 'global',
    loaders: {
      '.ts': track(loadModule),
      '.mts': track(loadModule),
      '.js': track(loadModule),
      '.mjs': track(loadModule),
      '.json': track(loadJsonConfig),
      '.yaml': track(loadYamlConfig),
      '.yml': track(loadYamlConfig),
      noExt: track(loadYamlConfig),
    },
    cache: false,
  });
  // A top-level await that never settles leaves nothing for the event loop to wait on: without
  // this (ref'ed) timer the process would just end, with exit code 0 and no output.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const what = loading ?? 'the Orange config';
      reject(new OrangeError('E_CONFIG', `${what} did not finish loading within ${duration(timeoutMs)} (a top-level await that never settles?)`, { file: loading, timeoutMs }));
    }, timeoutMs);
  });
  let found: { config: unknown; filepath: string; isEmpty?: boolean } | null;
  try {
    found = await Promise.race([explorer.search(cwd), deadline]);
  } catch (error) {
    if (isOrangeError(error)) throw error;
    const file = (error as { filepath?: unknown } | null)?.filepath;
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    throw new OrangeError('E_CONFIG', typeof file === 'string' ? `${file}: ${reason}` : `could not load the Orange config: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
  if (!found || found.isEmpty) return { config: parseConfig({}, null), file: null };
  return { config: parseConfig(found.config, found.filepath), file: found.filepath };
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
