import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isOrangeError, parseGuard, TaskMetaSchema, type Orange, type OrangePlugin, type WorkflowDefinition } from '@orange/core';
import { FunctionSources } from '../startup/function-source.js';
import { mismatchProblem, versionReport, type VersionReport } from '../startup/package-versions.js';

/** What `orange doctor` found: what is loaded and from where, and every problem. */
export interface DoctorReport {
  readonly config: string | null;
  readonly plugins: readonly { name: string; from: string }[];
  readonly gates: readonly { name: string; from: string }[];
  readonly actions: readonly { name: string; plugins: string[]; from: string[] }[];
  readonly harnesses: readonly { name: string; installed: boolean; version: string | null; from: string }[];
  /** `plugin`: the plugin that registered the workflow (null for a built-in or config one); `from`: that plugin's file. */
  readonly workflows: readonly { name: string; plugin: string | null; from: string; ok: boolean }[];
  readonly tools: readonly { name: string; version: string | null; required: boolean }[];
  readonly home: { path: string; mode: string | null; writable: boolean };
  /** The CLI's version, what its bundle carries, and the copies the repository installed. */
  readonly versions: VersionReport;
  /** One sentence each; any makes `orange doctor` exit 1. */
  readonly problems: readonly string[];
  /** Worth knowing, not wrong (e.g. gh missing: merges stay local). */
  readonly notes: readonly string[];
}

/** The built-in code is the CLI's bundle: a function defined in its directory is built in. */
const BUNDLE_DIR = dirname(fileURLToPath(import.meta.url));
const BUILTIN_WORKFLOWS = new Set(['default', 'classic', 'pipeline']);

/** Examines a loaded Orange: every provider with its file, every workflow validated, the tools, ORANGE_HOME and package versions. */
export async function diagnose(orange: Orange, builtins: readonly OrangePlugin[], cliVersion: string): Promise<DoctorReport> {
  const problems: string[] = [];
  const notes: string[] = [];
  const configDir = orange.configFile ? dirname(orange.configFile) : process.cwd();
  const sources = await FunctionSources.open();
  const where = async (fn: unknown): Promise<string> => {
    const place = await sources.locate(fn);
    if (!place) return 'unknown';
    if (place.file.startsWith(`${BUNDLE_DIR}${sep}`) || place.file === BUNDLE_DIR) return 'built-in';
    const path = relative(configDir, place.file);
    return `${path.startsWith('..') || isAbsolute(path) ? place.file : path}:${place.line}`;
  };
  try {
    const configured = new Map(orange.config.plugins.map((p) => [p.name, p]));
    const builtinNames = new Set(builtins.map((p) => p.name));
    const plugins = [];
    for (const name of orange.plugins) {
      const own = configured.get(name);
      const from = own ? await where(own.apply) : name === 'core' || name === 'core-notifications' || builtinNames.has(name) ? 'built-in' : 'unknown';
      plugins.push({ name, from: own && from === 'built-in' ? `built-in, options from ${basename(orange.configFile ?? 'the config')}` : from });
    }

    const gates = [];
    for (const [name, gate] of orange.gates) gates.push({ name, from: await where(gate) });

    const actions = [];
    for (const name of [...orange.providedActions()].sort()) {
      const taps = orange.hooks.actions.get(name)?.taps ?? [];
      actions.push({ name, plugins: taps.map((t) => t.name), from: await Promise.all(taps.map((t) => where(t.fn))) });
    }

    const harnesses = [];
    for (const harness of [...orange.harnesses.values()].filter((h) => !h.internal)) {
      const installed = await harness.installed().catch(() => false);
      harnesses.push({ name: harness.name, installed, version: installed ? await harnessVersion(orange, harness.name) : null, from: await where(harness.command) });
    }
    for (const field of ['harness', 'reviewHarness'] as const) {
      const name = orange.config[field];
      const found = harnesses.find((h) => h.name === name);
      if (name !== undefined && found && !found.installed) problems.push(`${field} "${name}" is not installed on this machine (its agent CLI is not on PATH)`);
    }
    for (const r of orange.harnessReplacements) {
      const who = (plugin: string | null) => (plugin ? `plugin ${plugin}` : 'code outside any plugin');
      notes.push(`harness "${r.harness}" of ${who(r.replaced)} is replaced by the one of ${who(r.by)}: whatever names "${r.harness}" gets the latter; give one of them another name to keep both`);
    }
    if (orange.config.harness === undefined && !harnesses.some((h) => h.installed)) {
      problems.push(`no agent harness is installed (${harnesses.map((h) => h.name).join(', ') || 'none registered'}); install claude or codex, or configure the command harness`);
    }

    const workflows = [];
    const fromConfig = new Set([...orange.config.workflows.map((w) => w.name), ...(typeof orange.config.workflow === 'string' ? [] : [orange.config.workflow.name])]);
    const pluginFrom = new Map(plugins.map((p) => [p.name, p.from]));
    /** Where workflow `name` comes from: its plugin's file, the config, or the built-ins. */
    const workflowFrom = (name: string, plugin: string | null | undefined): string => {
      // A plugin's registration replaces a built-in or config workflow of the same name.
      if (plugin !== undefined) return (plugin !== null && pluginFrom.get(plugin)) || 'unknown';
      if (fromConfig.has(name)) return basename(orange.configFile ?? 'config');
      return BUILTIN_WORKFLOWS.has(name) ? 'built-in' : 'unknown';
    };
    // A built-in workflow nobody uses may lack the plugin that provides its actions (the pipeline's,
    // with defaults: false): that is a note, not a problem; in use, it is a problem.
    const inUse = new Set([orange.defaultWorkflowName, ...(await orange.projects.list()).map((p) => p.workflow).filter((w): w is string => typeof w === 'string')]);
    for (const name of orange.workflowNames) {
      const plugin = orange.workflowPlugin(name);
      const from = workflowFrom(name, plugin);
      const found = from === 'built-in' && !inUse.has(name) ? notes : problems;
      let ok = true;
      try {
        const workflow = orange.workflow(name);
        for (const problem of undeclaredGuardFields(workflow.definition)) {
          ok = false;
          found.push(`workflow "${name}": ${problem}`);
        }
      } catch (error) {
        ok = false;
        if (!isOrangeError(error)) throw error;
        const listed = (error.details as { problems?: unknown }).problems;
        const all = Array.isArray(listed) ? (listed as string[]) : [error.message];
        if (found === notes) notes.push(`built-in workflow "${name}" is not available with this config (no project or default uses it): ${all[0] ?? error.message}${all.length > 1 ? ` (and ${all.length - 1} more)` : ''}`);
        else for (const problem of all) problems.push(`workflow "${name}": ${problem}`);
      }
      workflows.push({ name, plugin: plugin ?? null, from, ok });
    }

    const usesTmux = orange.plugins.includes('tmux');
    const tools = [
      { name: 'git', version: await toolVersion('git', ['--version']), required: true },
      { name: 'tmux', version: await toolVersion('tmux', ['-V']), required: usesTmux },
      { name: 'gh', version: await toolVersion('gh', ['--version']), required: false },
    ];
    for (const tool of tools) {
      if (tool.version !== null) continue;
      if (tool.required) problems.push(`${tool.name} is not installed (or not on PATH); Orange needs it${tool.name === 'tmux' ? ' to run agents' : ''}`);
      else notes.push(`${tool.name} is not installed: pull requests are off, and orange task merge merges locally (no --local needed)`);
    }

    if (await usesPipeline(orange)) {
      const { pipelineConfigNotes } = await import('@orange/plugin-pipeline');
      notes.push(...(await pipelineConfigNotes(orange)));
    }

    // What plugins left outside Orange's files (a runtime's containers) that no task owns now.
    const leftovers: string[] = [];
    await orange.hooks.sweep.promise({ orange, project: undefined, remove: false, found: leftovers });
    problems.push(...leftovers);

    const home = await homeAccess(orange.paths.home);
    if (home.problem) problems.push(home.problem);
    if (home.note) notes.push(home.note);

    const versions = await versionReport(configDir, cliVersion);
    for (const copy of versions.installed) if (!copy.ok) problems.push(mismatchProblem(copy));
    return {
      config: orange.configFile,
      plugins,
      gates,
      actions,
      harnesses,
      workflows,
      tools,
      home: { path: orange.paths.home, mode: home.mode, writable: home.writable },
      versions,
      problems,
      notes,
    };
  } finally {
    sources.close();
  }
}

/** The pipeline plugin is loaded and something selects it: its options in the config, the config's workflow, or a project's. */
async function usesPipeline(orange: Orange): Promise<boolean> {
  if (!orange.plugins.includes('pipeline')) return false;
  const workflow = typeof orange.config.workflow === 'string' ? orange.config.workflow : orange.config.workflow.name;
  if (workflow === 'pipeline' || orange.config.plugins.some((p) => p.name === 'pipeline')) return true;
  const projects = await orange.projects.list().catch(() => []);
  return projects.some((p) => p.workflow === 'pipeline');
}

/**
 * Guards may only compare fields a task has: the frontmatter fields of every task, or the ones
 * the workflow declares under `fields`. Any other name is always absent, so its guard never holds
 * (or always does), which is a typo, not a rule.
 */
export function undeclaredGuardFields(definition: WorkflowDefinition): string[] {
  const known = new Set([...Object.keys(TaskMetaSchema.shape), ...Object.keys(definition.fields)]);
  const problems: string[] = [];
  const check = (guard: string | undefined, where: string) => {
    if (guard === undefined) return;
    const parsed = parseGuard(guard);
    if (parsed.ok && !known.has(parsed.guard.field)) {
      problems.push(`${where} guard "${guard}" names field "${parsed.guard.field}", which no task has (declare it under fields, or fix the name)`);
    }
  };
  for (const t of definition.transitions) check(t.guard, `transition ${t.from} → ${t.to}`);
  for (const [state, def] of Object.entries(definition.states)) {
    for (const ref of [def.prompt, def.respawnPrompt]) {
      if (Array.isArray(ref)) for (const option of ref) check(option.guard, `state ${state} prompt`);
    }
  }
  return problems;
}

/**
 * The version of a harness's agent CLI, asked only of a CLI named like the harness (claude,
 * codex, …): a command harness runs a program of the user's, which `--version` might not mean.
 */
async function harnessVersion(orange: Orange, name: string): Promise<string | null> {
  const harness = orange.harnesses.get(name);
  if (!harness) return null;
  let program: string | undefined;
  try {
    program = harness.command({ task: { id: 'doctor' } as never, role: 'worker', prompt: '', respawn: false, effort: null, workspace: process.cwd() }).argv[0];
  } catch {
    return null;
  }
  if (program === undefined || basename(program) !== name) return null;
  return toolVersion(program, ['--version']);
}

/**
 * The first line a tool prints for its version, or null when it cannot be run. On stdout; on
 * stderr (as pi prints it) only when stdout is empty and the line is a version (digits and dots),
 * not a warning or an error.
 */
async function toolVersion(program: string, args: readonly string[]): Promise<string | null> {
  const { execa } = await import('execa');
  const result = await execa(program, args, { reject: false, timeout: 5000, stdin: 'ignore' });
  if (result.exitCode !== 0) return null;
  const firstLine = (text: unknown) => String(text).trim().split('\n')[0]?.trim() ?? '';
  const out = firstLine(result.stdout);
  const err = firstLine(result.stderr);
  const printed = out !== '' ? out : VERSION_LINE.test(err) ? err : '';
  return printed.replace(/^(git version|tmux|gh version)\s+/i, '') || null;
}

/** A line that is a version and nothing else: digits and dots (`0.73.1`, `v1.2`). */
const VERSION_LINE = /^v?\d+(\.\d+)+$/;

async function homeAccess(home: string): Promise<{ mode: string | null; writable: boolean; problem?: string; note?: string }> {
  const info = await stat(home).catch(() => null);
  if (!info) return { mode: null, writable: true, note: `ORANGE_HOME ${home} does not exist yet; it is created when Orange first writes` };
  const mode = (info.mode & 0o777).toString(8).padStart(3, '0');
  const writable = await access(home, constants.W_OK).then(
    () => true,
    () => false,
  );
  if (!info.isDirectory()) return { mode, writable: false, problem: `ORANGE_HOME ${home} is not a directory` };
  if (!writable) return { mode, writable, problem: `ORANGE_HOME ${home} is not writable by this user (mode ${mode})` };
  // Agents read prompts and write TASK.md there: another user must not be able to rewrite them.
  if ((info.mode & 0o002) !== 0) return { mode, writable, problem: `ORANGE_HOME ${home} is writable by every user (mode ${mode}); run: chmod o-w ${home}` };
  return { mode, writable };
}
