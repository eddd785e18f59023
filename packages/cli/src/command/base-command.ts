import { join } from 'node:path';
import { format } from 'node:util';
// Subpath imports: the package index also loads help, ux and theme code no command needs.
import { Command } from '@oclif/core/command';
import * as Errors from '@oclif/core/errors';
import * as Flags from '@oclif/core/flags';
import { blockText, callerOf, checkAgentWrite, identityClaim, isOrangeError, OrangeError, terminalJson, type Caller, type NotificationDelivery, type Orange } from '@orange/core';
import { callerPlace, servedCall, setExitCode, writeStderr, writeStdout } from '../gateway/served-call.js';
import { EXIT_REFUSED, EXIT_USAGE, usageMessage, writeError } from './error-output.js';

/**
 * What every orange command shares: `--json`, the lazily built Orange instance (config loaded
 * with the cached loader, plugins imported only when a command needs them) and one error
 * format — a single sentence on stderr, or `{"error","code"}` with --json; never a stack
 * unless ORANGE_DEBUG=1.
 */
export abstract class OrangeCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: 'Print the result, or the error, as one JSON object.', default: false }),
  };

  private instance: Promise<Orange> | undefined;

  /**
   * Where this command's notifications go. A one-shot command writes them to the outbox and leaves
   * their delivery to a detached deliverer, so that an agent's `task update` never waits on a slow
   * webhook; a long-lived one (the monitor, the dashboard) delivers them itself. Set before `orange()`.
   */
  protected notificationDelivery: NotificationDelivery = 'outbox';

  /** Read from argv, not the parsed flags, so that a parse error is reported as JSON too. */
  protected get json(): boolean {
    const end = this.argv.indexOf('--');
    return (end === -1 ? this.argv : this.argv.slice(0, end)).includes('--json');
  }

  /**
   * Who may run the command. `person` (the default): a person's command, refused to an agent (a
   * call carrying a spawned agent's identity). `agent`: the agents' own commands (their task's
   * requests and sections, an exit report); an agent may write only its own task with them.
   * `reader`: reads only (or delivers notifications), whoever calls.
   */
  static audience: 'person' | 'agent' | 'reader' = 'person';

  private who: Promise<Caller> | undefined;

  /**
   * The Orange instance for this invocation (config, plugins, stores, engine). A person's command
   * called by an agent is refused here, before anything is read or written.
   */
  protected orange(): Promise<Orange> {
    this.instance ??= this.configDir()
      .then((dir) => this.orangeFor(dir))
      .then(async (orange) => {
        const audience = (this.constructor as typeof OrangeCommand).audience;
        // Reading is anyone's: a process with part of an agent's identity (a pipeline's headless run) reads too.
        if (audience === 'reader') return orange;
        const caller = await this.caller(orange);
        if (caller.kind === 'agent' && audience === 'person') {
          throw new OrangeError('E_FORBIDDEN', `orange ${this.commandName} is a person's command, not an agent's; an agent asks for its next status with: orange task update --status <status>`);
        }
        return orange;
      });
    return this.instance;
  }

  /** Who makes this call: a person, or the spawned agent whose identity (checked against Orange's record) its environment carries. */
  protected caller(orange: Orange): Promise<Caller> {
    // A served call's caller was verified by the gateway before it ran the command.
    this.who ??= Promise.resolve(servedCall()?.caller ?? callerOf(callerPlace().env, orange.store));
    return this.who;
  }

  /**
   * Refuses an agent's write to another task than its own (or from a spawn that is no longer its
   * task's agent); returns who the write is from, for the move's authority.
   */
  protected async writer(orange: Orange, task: { readonly project: string; readonly id: string }, what: string, options: { readonly current?: boolean } = {}): Promise<Caller> {
    const caller = await this.caller(orange);
    checkAgentWrite(caller, task, what, options);
    return caller;
  }

  /** The command as typed: `task merge`. */
  protected get commandName(): string {
    return (this.id ?? '').replace(/:/g, ' ');
  }

  /** Where the config search starts: the working directory, unless a command knows its project better. */
  protected async configDir(): Promise<string> {
    return callerPlace().cwd;
  }

  /**
   * An Orange instance on the config found from `cwd`. Outbox entries raised in another project are
   * routed by the config of that project's directory: such an instance delivers them in-process.
   */
  protected async orangeFor(cwd: string, delivery: NotificationDelivery = this.notificationDelivery): Promise<Orange> {
    // A served call runs on the server's Orange: its config and plugins are loaded already.
    const served = servedCall();
    if (served) return served.orange();
    return this.buildOrange(cwd, delivery);
  }

  /** A new Orange on the config found from `cwd` (what `orangeFor` builds outside a served call). */
  protected async buildOrange(cwd: string, delivery: NotificationDelivery): Promise<Orange> {
    const [{ Orange, OrangePaths, loadConfig }, { defaultPlugins }, { sharedModules }] = await Promise.all([
      import('@orange/core'),
      import('../startup/default-plugins.js'),
      import('../startup/shared-modules.js'),
    ]);
    const paths = OrangePaths.fromEnv();
    const loaded = await loadConfig(cwd, paths, { modules: await sharedModules() });
    return Orange.create(loaded.config, {
      paths,
      defaultPlugins,
      cliEntry: this.cliEntry,
      configFile: loaded.file,
      notificationDelivery: delivery,
      orangeFor: (dir) => this.orangeFor(dir, 'in-process'),
    });
  }

  /** The `orange` entry script, for processes this CLI starts of itself. */
  protected get cliEntry(): string {
    return join(this.config.root, 'bin', 'run.cjs');
  }

  /**
   * Once the command is done: notifications it wrote to the outbox get a detached deliverer, and
   * the process exits without waiting for them. Deliveries it started itself (a monitor, the
   * dashboard) end first; an outbox flush stops after the entry in flight.
   */
  override async finally(error: Error | undefined): Promise<unknown> {
    // A served call's Orange is the server's: its notifications are the server's to deliver.
    const orange = servedCall() ? undefined : await this.instance?.catch(() => undefined);
    if (orange) {
      orange.notifications.stopFlushing();
      await orange.notifications.settle();
      if (orange.notifications.outboxWrites > 0) {
        const { startDeliverer } = await import('../startup/notification-deliverer.js');
        startDeliverer(this.cliEntry, orange);
      }
    }
    return super.finally(error);
  }

  /** Prints `data` as JSON with --json, else runs `human`. */
  protected emit(data: object, human: () => void): void {
    if (this.json) this.logJson(data);
    else human();
  }

  /**
   * Every line for people passes through `blockText`: summaries, branches, reasons and log
   * lines come from agents and plugins, and whatever a command forgot to clean must still not
   * reach the terminal as an escape sequence. One-line values are cleaned with `inlineText` first.
   */
  override log(message = '', ...args: unknown[]): void {
    writeStdout(`${blockText(format(message, ...args))}\n`);
  }

  /**
   * JSON keeps every string exactly (a consumer parses it back unchanged); `terminalJson` writes
   * the characters a terminal would act on as `\uXXXX` escapes. Not pretty: one line (a stream).
   */
  override logJson(data: unknown, pretty = true): void {
    // Straight to the output: oclif's log would run util.format over it first, a second pass over
    // a listing of 10,000 tasks (6 MB) looking for `%`.
    writeStdout(`${terminalJson(data, pretty ? 2 : undefined)}\n`);
  }

  /**
   * A person's command run by an agent is refused before its arguments are parsed: the refusal,
   * not a missing argument, is what the agent needs to read.
   */
  override async init(): Promise<void> {
    await super.init();
    const audience = (this.constructor as typeof OrangeCommand).audience;
    if (audience === 'person' && identityClaim(callerPlace().env) !== null) await this.orange();
  }

  override async catch(error: Error & { exitCode?: number }): Promise<void> {
    // The answer is this error: oclif's development-time warning about a command that never parsed
    // its arguments (NODE_ENV=test, as an agent's environment may say) would only add noise to it.
    this.parsed = true;
    if (error instanceof Errors.ExitError) throw error;
    const { message, code, exit } = describe(error);
    if (callerPlace().env.ORANGE_DEBUG === '1' && error.stack) writeStderr(`${error.stack}\n`);
    writeError(message, code, this.json);
    setExitCode(exit);
    // A config that never finished loading may still hold timers or sockets open: the answer is
    // given, so the process must not linger on them (an agent would wait on it forever).
    if (isOrangeError(error) && error.code === 'E_CONFIG' && typeof error.details.timeoutMs === 'number' && !servedCall()) process.exit(exit);
  }
}

function describe(error: Error): { message: string; code: string; exit: number } {
  if (isOrangeError(error)) {
    return { message: oneLine(error.message), code: error.code, exit: error.code === 'E_USAGE' ? EXIT_USAGE : EXIT_REFUSED };
  }
  if (error instanceof Errors.CLIError) {
    // oclif's parse errors (unknown flag, missing argument, bad option value) are usage errors.
    return { message: oneLine(usageMessage(error.message)), code: 'E_USAGE', exit: EXIT_USAGE };
  }
  const hint = callerPlace().env.ORANGE_DEBUG === '1' ? '' : ' (set ORANGE_DEBUG=1 for the stack)';
  return { message: `unexpected error: ${oneLine(error.message)}${hint}`, code: 'E_INTERNAL', exit: EXIT_REFUSED };
}

/** Multi-line messages (oclif's argument lists) become one line. */
function oneLine(message: string): string {
  return message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' — ')
    .replace(/:\s+—\s+/g, ': ');
}
