import { configThrowPlace, parseConfig, type OrangeConfig } from './config/index.js';
import { Engine } from './engine/index.js';
import { isOrangeError, OrangeError } from './errors/index.js';
import { Logger } from './log/index.js';
import { coreNotifications, Notifications, type NotificationDelivery } from './notifications/index.js';
import { coreActions, createHooks, type Harness, type HarnessReplacement, type Orange as OrangeApi, type OrangeHooks, type OrangePlugin, type Slots } from './plugin/index.js';
import { OrangePaths, ProjectStore, TaskStore } from './store/index.js';
import type { AgentRole, TaskMeta } from './task/index.js';
import { builtinGates, classicWorkflow, defaultWorkflow, pipelineWorkflow, Workflow, type Gate, type WorkflowInput } from './workflow/index.js';

export interface OrangeOptions {
  /** Data root; default from `$ORANGE_HOME`. */
  readonly paths?: OrangePaths;
  /** The built-in plugins used unless the config says `defaults: false`. */
  readonly defaultPlugins?: () => OrangePlugin[];
  /** Path of the `orange` CLI entry script, for plugins that start agents which call it. */
  readonly cliEntry?: string;
  /** The config file the config came from (for messages). */
  readonly configFile?: string | null;
  /**
   * Stores and logger to use instead of the files under `paths` (`orange workflow simulate` runs
   * the engine on in-memory ones). With a store given, the home directory is not checked.
   */
  readonly store?: TaskStore;
  readonly projects?: ProjectStore;
  readonly log?: Logger;
  /** Where raised notifications go: delivered here (default) or written to the outbox for the deliverer (one-shot CLI calls). */
  readonly notificationDelivery?: NotificationDelivery;
  /**
   * An instance on the config found from `cwd` (the CLI's loader): an outbox entry raised in another
   * registered project is routed by that project's config. Without it, by this instance's.
   */
  readonly orangeFor?: (cwd: string) => Promise<Orange>;
}

const BUILTIN_WORKFLOWS: readonly WorkflowInput[] = [defaultWorkflow, classicWorkflow, pipelineWorkflow];

/**
 * The composition root: builds one Orange instance — the bus, the stores, the engine, the
 * notifications — applies the plugins, and checks the workflows against what they provide. The
 * rooms below never import this file; they see the instance through the `Orange` interface of the
 * plugin room, which this class implements.
 */
export interface Orange extends OrangeApi {}

/**
 * One Orange instance, as plugins and every part of Orange see it (the plugin room's interface).
 * `Orange.create(config, options)` builds one; `x instanceof Orange` holds for what it built.
 */
export abstract class Orange {
  /**
   * Builds an instance: applies the core plugin, the built-in plugins (unless replaced by a
   * config plugin of the same name, or `defaults: false`), then the config's plugins, and
   * validates the configured workflow against what they provide.
   */
  static create(config: OrangeConfig | Record<string, unknown> = {}, options: OrangeOptions = {}): Promise<Orange> {
    return OrangeRoot.build(config, options);
  }

  /** `instanceof Orange` holds for every instance `create` built (a plugin may check it). */
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof OrangeRoot;
  }
}

class OrangeRoot implements OrangeApi {
  readonly hooks: OrangeHooks = createHooks();
  readonly paths: OrangePaths;
  readonly store: TaskStore;
  readonly projects: ProjectStore;
  readonly log: Logger;
  readonly config: OrangeConfig;
  readonly engine: Engine;
  /** Notifier registry and delivery (`register`, `raise`, `settle`, the outbox). */
  readonly notifications: Notifications;
  readonly cliEntry: string | undefined;
  readonly configFile: string | null;
  readonly gates = new Map<string, Gate>(Object.entries(builtinGates));
  readonly harnesses = new Map<string, Harness>();
  /** The plugin that registered each harness (null: outside any plugin's apply). */
  private readonly harnessOwners = new Map<string, string | null>();
  /** Harnesses a plugin registered under a name another plugin had registered first (the later one is used). */
  readonly harnessReplacements: HarnessReplacement[] = [];
  /** Names of the applied plugins, in order. */
  readonly plugins: string[] = [];
  private readonly slots: Partial<Slots> = {};
  private readonly workflowInputs = new Map<string, WorkflowInput>();
  private readonly workflows = new Map<string, Workflow>();
  private readonly actionNames = new Set<string>();
  /** The plugin whose `apply` is running, so what it registers can be traced to it. */
  private applying: string | null = null;
  /** Which plugin registered each workflow that a plugin registered. */
  private readonly workflowPlugins = new Map<string, string | null>();

  private constructor(config: OrangeConfig, options: OrangeOptions) {
    this.hooks.actions.intercept({
      factory: (key, hook) => {
        this.actionNames.add(String(key));
        return hook;
      },
    });
    this.config = config;
    this.paths = options.paths ?? OrangePaths.fromEnv();
    this.store = options.store ?? new TaskStore(this.paths);
    this.projects = options.projects ?? new ProjectStore(this.paths);
    this.log = options.log ?? new Logger(this.paths.logFile, config.logLevel);
    this.cliEntry = options.cliEntry;
    this.configFile = options.configFile ?? null;
    this.engine = new Engine(this);
    this.notifications = new Notifications(this, options.notificationDelivery, options.orangeFor);
    for (const w of [...BUILTIN_WORKFLOWS, ...config.workflows]) this.workflowInputs.set(w.name, w);
    if (typeof config.workflow !== 'string') this.workflowInputs.set(config.workflow.name, config.workflow);
  }

  /**
   * Builds an instance: applies the core plugin, the built-in plugins (unless replaced by a
   * config plugin of the same name, or `defaults: false`), then the config's plugins, and
   * validates the configured workflow against what they provide.
   */
  static async build(config: OrangeConfig | Record<string, unknown> = {}, options: OrangeOptions = {}): Promise<Orange> {
    const parsed = isParsedConfig(config) ? config : parseConfig(config, options.configFile ?? null);
    const orange = new OrangeRoot(parsed, options);
    if (options.store === undefined) await orange.paths.checkHome();
    // The config room checked each plugin's shape (a name and an apply); here it gets its full type.
    const configured = parsed.plugins as OrangePlugin[];
    const builtins = parsed.defaults && options.defaultPlugins ? options.defaultPlugins() : [];
    const builtinNames = new Set(builtins.map((p) => p.name));
    // A config plugin named like a built-in takes the built-in's place, so that re-listing
    // claude with other options does not move it behind codex in harness detection.
    const defaults = builtins.map((p) => configured.find((c) => c.name === p.name) ?? p);
    const added = configured.filter((p) => !builtinNames.has(p.name));
    for (const plugin of [coreActions(), coreNotifications(), ...defaults, ...added]) {
      try {
        orange.applying = plugin.name;
        await plugin.apply(orange);
      } catch (error) {
        throw await applyError(plugin.name, error, orange.configFile);
      } finally {
        orange.applying = null;
      }
      orange.plugins.push(plugin.name);
    }
    orange.checkHarnessNames();
    orange.notifications.checkRoutes();
    // Every workflow the user wrote is checked now (its actions against what the plugins
    // provide), not when a project first uses it; built-ins the config does not use are not.
    orange.workflow(orange.defaultWorkflowName);
    for (const w of parsed.workflows) orange.workflow(w.name);
    return orange;
  }

  /**
   * `harness` and `reviewHarness` must name a registered harness: a typo is refused when the
   * config loads, naming the field and the known names, not when an agent is first spawned.
   * Whether it is installed is a question for the moment of spawning (and `orange doctor`).
   */
  /** The harnesses that start agent CLIs, in registration order (not Orange's own, like the pipeline driver). */
  agentHarnessNames(): string[] {
    return [...this.harnesses.values()].filter((h) => !h.internal).map((h) => h.name);
  }

  private checkHarnessNames(): void {
    for (const field of ['harness', 'reviewHarness'] as const) {
      const name = this.config[field];
      if (name === undefined || this.harnesses.has(name)) continue;
      const known = this.agentHarnessNames().join(', ') || 'none';
      throw new OrangeError('E_CONFIG', `${this.configFile ?? 'built-in config'}: field "${field}" names no registered harness "${name}" (known: ${known})`, {
        file: this.configFile,
        field,
      });
    }
  }

  /** Fills a slot (runtime, workspaces, scm). A later plugin replaces an earlier one. */
  provide<K extends keyof Slots>(slot: K, implementation: Slots[K]): void {
    this.slots[slot] = implementation;
  }

  /** The plugin filling `slot`; throws E_NO_PROVIDER naming the slot when none does. */
  slot<K extends keyof Slots>(slot: K): Slots[K] {
    const implementation = this.slots[slot];
    if (!implementation) throw new OrangeError('E_NO_PROVIDER', `no plugin provides the ${slot} slot (check the plugins in your orange config)`);
    return implementation;
  }

  /** The plugin filling `slot`, or undefined. */
  maybeSlot<K extends keyof Slots>(slot: K): Slots[K] | undefined {
    return this.slots[slot];
  }

  registerGate(name: string, gate: Gate): void {
    this.gates.set(name, gate);
    this.workflows.clear();
  }

  /**
   * Registers a harness under its name. A later one of the same name replaces the earlier (a
   * plugin may override a built-in harness on purpose); another plugin's replacement is logged and
   * kept in `harnessReplacements`, so that `orange doctor` says so instead of it passing unseen.
   */
  registerHarness(harness: Harness): void {
    const owner = this.harnessOwners.get(harness.name);
    if (this.harnesses.has(harness.name) && owner !== this.applying) {
      this.harnessReplacements.push({ harness: harness.name, replaced: owner ?? null, by: this.applying });
      this.log.warn('harness replaced', { harness: harness.name, replaced: owner ?? null, by: this.applying });
    }
    this.harnesses.set(harness.name, harness);
    this.harnessOwners.set(harness.name, this.applying);
  }

  /** Adds a named workflow (e.g. from a plugin), remembering the plugin whose `apply` registers it. */
  registerWorkflow(workflow: WorkflowInput): void {
    this.workflowInputs.set(workflow.name, workflow);
    this.workflowPlugins.set(workflow.name, this.applying);
    this.workflows.delete(workflow.name);
  }

  /**
   * The plugin that registered workflow `name` through `registerWorkflow`; null when it was
   * registered outside any plugin's `apply`; undefined for a built-in or config workflow.
   */
  workflowPlugin(name: string): string | null | undefined {
    return this.workflowPlugins.get(name);
  }

  get defaultWorkflowName(): string {
    return typeof this.config.workflow === 'string' ? this.config.workflow : this.config.workflow.name;
  }

  get workflowNames(): string[] {
    return [...this.workflowInputs.keys()];
  }

  /** Action names some plugin has tapped. */
  providedActions(): Set<string> {
    const provided = new Set<string>();
    for (const name of this.actionNames) if ((this.hooks.actions.get(name)?.taps.length ?? 0) > 0) provided.add(name);
    return provided;
  }

  /** A validated workflow by name; every gate and action it names must be registered. */
  workflow(name: string = this.defaultWorkflowName): Workflow {
    const cached = this.workflows.get(name);
    if (cached) return cached;
    const input = this.workflowInputs.get(name);
    if (!input) {
      throw new OrangeError('E_WORKFLOW_INVALID', `no workflow named "${name}" (known: ${this.workflowNames.join(', ')})`);
    }
    const workflow = Workflow.load(input, { gates: new Set(this.gates.keys()), actions: this.providedActions() });
    this.workflows.set(name, workflow);
    return workflow;
  }

  /** The workflow a task runs: the one it was created with, else its project's (a task from before that field). */
  async workflowFor(task: Pick<TaskMeta, 'project'> & { readonly workflow?: string | null }): Promise<Workflow> {
    return task.workflow ? this.workflow(task.workflow) : this.workflowForProject(task.project);
  }

  /** The workflow a project gives its new tasks. */
  async workflowForProject(project: string): Promise<Workflow> {
    const registered = (await this.projects.list()).find((p) => p.name === project);
    return this.workflow(registered?.workflow ?? this.defaultWorkflowName);
  }

  /**
   * The harness for an agent: the task's own choice, else the config default for the role,
   * else the first installed one.
   */
  async resolveHarness(task: TaskMeta, role: AgentRole): Promise<Harness> {
    // `||`, not `??`: an empty name (`--harness ""`) means no choice, like an absent one.
    const requested = (role === 'reviewer' ? task.review_harness || this.config.reviewHarness : null) || task.harness || this.config.harness;
    if (requested) {
      const harness = this.harnesses.get(requested);
      if (!harness) {
        throw new OrangeError('E_HARNESS', `no harness named "${requested}" (known: ${this.agentHarnessNames().join(', ') || 'none'})`);
      }
      return harness;
    }
    for (const harness of this.harnesses.values()) if (await harness.installed()) return harness;
    throw new OrangeError('E_HARNESS', 'no agent harness is installed (install claude, codex, pi, opencode or gemini, or configure the command harness)');
  }
}

function isParsedConfig(config: unknown): config is OrangeConfig {
  return typeof config === 'object' && config !== null && Array.isArray((config as OrangeConfig).plugins) && typeof (config as OrangeConfig).pollIntervalMs === 'number';
}

/**
 * A throw inside a plugin's `apply`, as one line naming the plugin and, when the stack runs through
 * the config or a local file it imports, the place as written: `plugin veto failed in apply: no
 * channel (plugins/veto.ts:12:5)`. An OrangeError keeps its code and details.
 */
async function applyError(plugin: string, error: unknown, configFile: string | null): Promise<OrangeError> {
  const place = configFile ? await configThrowPlace(configFile, error) : null;
  const at = place ? ` (${place})` : '';
  // isOrangeError: a plugin built against its own copy of @orange/core throws that copy's class.
  if (isOrangeError(error)) return new OrangeError(error.code, `plugin ${plugin} failed in apply: ${error.message}${at}`, { plugin, ...error.details });
  const reason = error instanceof Error ? (error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message) : String(error);
  return new OrangeError('E_CONFIG', `plugin ${plugin} failed in apply: ${reason}${at}`, { plugin });
}
