import * as Flags from '@oclif/core/flags';
import { onSignals, type Orange } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { followHangUp } from '../command/hung-up-terminal.js';
import { startGateway } from '../gateway/start-gateway.js';

export default class Web extends OrangeCommand {
  static override summary = 'Serve the fleet to a browser: the board, task pages, live agent terminals and every action.';
  static override description = [
    'Prints one URL to open; it carries a secret token, which the page keeps as a cookie. Listens on',
    '127.0.0.1 only unless --host names another address and --expose says you mean it. While it',
    "runs it answers agents' calls and runs the monitor's poll (unless an orange monitor of every",
    'project does), like orange dash. Stops on Ctrl-C. See docs/web.md.',
  ].join(' ');
  static override examples = ['<%= config.bin %> web', '<%= config.bin %> web --open', '<%= config.bin %> web --port 8080 --project app', '<%= config.bin %> web --host 0.0.0.0 --expose --allow-host mybox.lan'];
  static override flags = {
    port: Flags.integer({ description: 'Port to listen on (0: any free one).', default: 7420, min: 0, max: 65535 }),
    host: Flags.string({ description: 'Address to listen on.', default: '127.0.0.1' }),
    expose: Flags.boolean({ description: 'Allow --host to be an address other machines can reach.', default: false }),
    'allow-host': Flags.string({ description: 'Another name the page is reached by (the Host header), e.g. a DNS name of this machine; repeatable.', multiple: true }),
    open: Flags.boolean({ description: 'Open the URL in the browser ($BROWSER, else the system opener).', default: false }),
    project: Flags.string({ char: 'p', description: "Only this project's tasks (default: every project)." }),
    'new-token': Flags.boolean({ description: 'Make a new secret: pages opened with the old URL must open the new one.', default: false }),
    interval: Flags.integer({ description: "Milliseconds between the monitor's passes (default: the config's pollIntervalMs).", min: 200 }),
  };

  // Long-lived: delivers its notifications itself (and, on every pass, what the outbox still holds).
  protected override notificationDelivery = 'in-process' as const;

  async run(): Promise<void> {
    const { flags } = await this.parse(Web);
    // The web package loads while the config and plugins do; no other command loads it.
    const web = loadWeb();
    const orange: Orange = await this.orange();
    if (flags.project) await orange.projects.get(flags.project);
    const { openWeb, webToken } = await web;
    const { clarifyTask, resumeTask } = await import('@orange/plugin-pipeline');
    const token = await webToken(orange.paths.home, flags['new-token']);
    const server = await openWeb({
      orange,
      project: flags.project,
      host: flags.host,
      port: flags.port,
      exposed: flags.expose,
      allowHosts: flags['allow-host'] ?? [],
      token,
      version: this.config.version,
      pollIntervalMs: flags.interval,
      operators: { clarifyTask, resumeTask },
    });
    const stop = new AbortController();
    const offSignals = onSignals(['SIGINT', 'SIGTERM'], () => stop.abort());
    // A closed terminal (SIGHUP) stops it too: the server and the gateway still close, and the exit
    // is 0, not a crash.
    const offHangUp = followHangUp(() => stop.abort());
    // Agents' calls are answered here while it runs (unless another Orange serves them already).
    const gateway = await startGateway(this.config, orange, await this.configDir(), (cwd) => this.buildOrange(cwd, 'in-process'));
    try {
      if (flags.expose) this.warn(`listening on ${flags.host}: anyone who can reach this port and has the URL's token can run agents on this machine; the token and cookie cross the network unencrypted`);
      this.log(server.url);
      if (flags.open) {
        const { openUrl } = await import('@orange/dashboard/fleet');
        process.stderr.write(`${await openUrl(server.url)}\n`);
      }
      await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    } finally {
      offSignals();
      await server.close();
      await gateway?.close();
      offHangUp();
    }
  }
}

/** The web package (an ES module from node_modules, never part of the CLI bundle). */
async function loadWeb(): Promise<typeof import('@orange/web')> {
  // `await import(` as written here is what the bundle's code-cache loader rewrites (tsup.config.ts).
  return await import('@orange/web');
}
