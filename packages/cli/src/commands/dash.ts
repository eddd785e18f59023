import * as Flags from '@oclif/core/flags';
import { isOrangeError, OrangeError, type Orange } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { followHangUp } from '../command/hung-up-terminal.js';
import { inferProject } from '../command/locate.js';
import { startGateway } from '../gateway/start-gateway.js';
import { freeProjectName, inspectRepository, type RepositoryFacts } from '../init/repository.js';

export default class Dash extends OrangeCommand {
  static override summary = 'Open the dashboard: every task and agent on one screen, live (plain `orange` in a terminal does too).';
  static override description = [
    "Scoped to the project you stand in (a git repository not registered yet is registered), else to",
    'every project; --all or --project NAME choose. Enter attaches to an agent and comes back when you',
    'detach (Ctrl-b d), or, inside a tmux client of the agents\' own server, when you switch back',
    '(Ctrl-b L); the footer shows which. While open it follows the task files and runs the monitor\'s',
    'poll, unless an orange monitor of every project runs. Needs a terminal; for a listing use orange',
    'task list. See docs/dashboard.md.',
  ].join(' ');
  static override hiddenAliases = ['dashboard'];
  static override examples = ['<%= config.bin %> dash', '<%= config.bin %> dash --all', '<%= config.bin %> dash --project app --exit-on-attach'];
  static override flags = {
    all: Flags.boolean({ char: 'a', description: "Every project's tasks.", default: false, exclusive: ['project'] }),
    project: Flags.string({ char: 'p', description: 'Only this project (default: the repository you are in).' }),
    'exit-on-attach': Flags.boolean({ description: 'Quit once you detach from an agent, instead of coming back to the dashboard.', default: false }),
    interval: Flags.integer({ description: "Milliseconds between the monitor's passes (default: the config's pollIntervalMs).", min: 200 }),
  };

  // Long-lived: delivers its notifications itself (and, on every pass, what the outbox still holds).
  protected override notificationDelivery = 'in-process' as const;

  async run(): Promise<void> {
    const { flags } = await this.parse(Dash);
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new OrangeError('E_USAGE', 'the dashboard needs a terminal (standard input or output is not one); for a listing use: orange task list');
    }
    // ink, react and the dashboard load while the config and plugins do.
    const dashboard = loadDashboard();
    const orange = await this.orange();
    const project = flags.all ? undefined : flags.project ? (await orange.projects.get(flags.project)).name : await projectHere(orange);
    // Loaded here only: ink and react must not slow down the commands agents call.
    const { openDashboard } = await dashboard;
    // Agents' calls are answered here while it is open (unless another Orange serves them already).
    const gateway = await startGateway(this.config, orange, await this.configDir(), (cwd) => this.buildOrange(cwd, 'in-process'));
    let offHangUp: (() => void) | undefined;
    try {
      // The pipeline's own call for `a` (answering a task awaiting clarification), from the copy
      // bundled here, the one the config's plugins share: the dashboard depends on no plugin.
      const { clarifyTask } = await import('@orange/plugin-pipeline');
      // A closed terminal quits the dashboard as q does (it listens for SIGHUP itself); its writes
      // fail from then on, the poll, the lease and the gateway are wound down all the same, and the
      // exit is 0, not a crash. Followed from here, with the dashboard: a SIGHUP before ends the process.
      offHangUp = followHangUp(() => undefined);
      await openDashboard({ orange, project, exitOnAttach: flags['exit-on-attach'], pollIntervalMs: flags.interval, operators: { clarifyTask } });
    } finally {
      await gateway?.close();
      offHangUp?.();
    }
  }
}

/** The dashboard package (an ES module from node_modules, never part of the CLI bundle). */
async function loadDashboard(): Promise<typeof import('@orange/dashboard')> {
  // ink decides once, when it loads, that a set CI or CONTINUOUS_INTEGRATION means "no terminal" and
  // then draws nothing until it exits. The dashboard only runs in a terminal (checked above), so those
  // variables are hidden while ink loads and put back for everything the dashboard starts.
  const saved = hideEnv(['CI', 'CONTINUOUS_INTEGRATION']);
  try {
    // `await import(` as written here is what the bundle's code-cache loader rewrites (tsup.config.ts).
    return await import('@orange/dashboard');
  } finally {
    Object.assign(process.env, saved);
  }
}

/** Removes `names` from the environment and returns the removed values, to put back. */
function hideEnv(names: readonly string[]): Record<string, string> {
  const removed: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    if (value === undefined) continue;
    removed[name] = value;
    delete process.env[name];
  }
  return removed;
}

/**
 * The project of the current directory; a git repository not registered yet is registered (as
 * `project add` would), under the directory's name or, when a project has that name, the first
 * free `name-2`, `name-3`, …. Undefined (every project) only outside any git repository: a
 * repository that cannot be registered is refused, never quietly widened to every project.
 */
async function projectHere(orange: Orange): Promise<string | undefined> {
  const known = await inferProject(orange);
  if (known) return known.name;
  let repo: RepositoryFacts;
  try {
    repo = await inspectRepository(process.cwd());
  } catch (error) {
    if (isOrangeError(error) && error.code === 'E_INVALID_INPUT') return undefined;
    throw new OrangeError('E_INVALID_INPUT', `could not read the git repository here to register it (${error instanceof Error ? error.message : String(error)}); use orange dash --all or --project NAME`);
  }
  // Another process may register a name between the listing and the add: take the next one then.
  for (let attempt = 0; ; attempt++) {
    const name = freeProjectName(repo.suggestedName, new Set((await orange.projects.list()).map((p) => p.name)));
    try {
      const project = await orange.projects.add({ name, path: repo.path, default_branch: repo.defaultBranch, pool_size: orange.config.poolSize });
      orange.log.info('project added', { project: project.name, path: project.path, by: 'dashboard' });
      return project.name;
    } catch (error) {
      const nameTaken = isOrangeError(error) && error.code === 'E_PROJECT_EXISTS' && error.details.field === 'name';
      if (!nameTaken || attempt >= 3) throw error;
    }
  }
}
