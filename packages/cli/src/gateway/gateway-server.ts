import { chmod, lstat, mkdir, realpath, unlink } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { dirname, relative, sep } from 'node:path';
import type { Config } from '@oclif/core/config';
import {
  callerOf,
  configSearchStart,
  environmentDifference,
  GATEWAY_VERSION,
  identityClaim,
  OrangeError,
  REQUEST_MAX_BYTES,
  servedWords,
  withCallOrigin,
  type Caller,
  type GatewayCaller,
  type GatewayReply,
  type GatewayRequest,
  type Logger,
  type Orange,
} from '@orange/core';
import { z } from 'zod';
import { writeError } from '../command/error-output.js';
import { serve, type ServedCall } from './served-call.js';

const requestSchema = z.object({
  v: z.number(),
  argv: z.array(z.string()).max(200),
  cwd: z.string().min(1),
  env: z.record(z.string(), z.string()),
  stdin: z.string(),
  pid: z.number().int().positive(),
  detach: z.boolean().optional(),
});

/** What the gateway needs of the long-running command that holds it. */
export interface GatewayHost {
  /** The CLI's oclif config: the gateway runs the very commands the CLI runs. */
  readonly config: Config;
  /** The host's own Orange: its store checks identities, its paths place the socket. */
  readonly orange: Orange;
  /** An Orange for the config searched from `dir` (the host caches them). */
  readonly orangeFor: (dir: string) => Promise<Orange>;
}

/** Connections open at once; more wait in the kernel's queue (the caller's connect succeeds, its request waits). */
const MAX_CONNECTIONS = 128;
/** How long a connection may take to send its request line. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * One socket of a long-running Orange's gateway (docs/architecture.md, "The gateway"): a call
 * costs its caller a small client instead of a whole CLI start (config, plugins). The agents'
 * socket answers agents' own calls (`task update`, `task section set`, `task show`, exit reports),
 * only with an identity Orange gave and only for that agent's own task. The people's socket
 * answers a person's scripted fleet commands (`task create`, `task merge`, …), only without any
 * agent identity, and only when this process sees the same variables git and gh would.
 */
export class GatewayServer {
  private server: Server | null = null;
  /** The socket file this server made (device and inode): only that one is removed when it stops. */
  private made: { dev: number; ino: number } | null = null;
  private readonly open = new Set<Socket>();
  private readonly running = new Set<Promise<unknown>>();
  /** Work calls left behind (their own window, closed once they hung up). */
  private readonly kept = new Set<Promise<unknown>>();
  private readonly log: Logger;

  constructor(
    private readonly host: GatewayHost,
    readonly caller: GatewayCaller,
  ) {
    this.log = host.orange.log.child('gateway');
  }

  get socketPath(): string {
    return this.caller === 'agent' ? this.host.orange.paths.gatewaySocket : this.host.orange.paths.peopleSocket;
  }

  /**
   * Listens; false (and the reason in the log) when another Orange already serves this home or the
   * socket cannot be made (a home whose path is too long for a Unix socket): agents' calls then go
   * through the CLI as without a gateway.
   */
  async start(): Promise<boolean> {
    const path = this.socketPath;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await chmod(dirname(path), 0o700);
    for (let attempt = 0; attempt < 2; attempt++) {
      const server = createServer((socket) => this.accept(socket));
      const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
        server.once('error', resolve);
        server.listen(path, () => resolve(null));
      });
      if (error === null) {
        // Same user only: the folder is the user's, and so is the socket.
        await chmod(path, 0o600);
        server.maxConnections = MAX_CONNECTIONS;
        const info = await lstat(path);
        this.made = { dev: info.dev, ino: info.ino };
        server.on('error', (e) => this.log.error('gateway error', { error: e.message }));
        this.server = server;
        this.log.info('gateway listening', { socket: path, callers: this.caller });
        return true;
      }
      if (error.code !== 'EADDRINUSE' || attempt > 0) {
        this.log.warn('gateway not started; agents call the CLI', { socket: path, error: error.message });
        return false;
      }
      if (await answers(path)) {
        this.log.info('another Orange serves the gateway', { socket: path });
        return false;
      }
      // Left by an Orange that died: nobody listens on it.
      await unlink(path).catch(() => undefined);
    }
    return false;
  }

  /** Stops taking calls, lets the ones in flight finish, and removes the socket. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled([...this.running]);
    // Hung up on, the callers' windows are closed now; that is waited for too.
    for (const socket of this.open) socket.destroy();
    await Promise.allSettled([...this.kept]);
    await closed;
    // A socket file another Orange made since (after ours was taken for stale) is not ours to remove.
    const info = await lstat(this.socketPath).catch(() => null);
    if (info && this.made && info.dev === this.made.dev && info.ino === this.made.ino) await unlink(this.socketPath).catch(() => undefined);
  }

  /** Where a served call's config is searched from: its agent's project, or the registered project a person calls from; null for none. */
  private async configDir(task: { readonly project: string } | null, cwd: string): Promise<string | null> {
    const projects = await this.host.orange.projects.list();
    if (task) return projects.find((p) => p.name === task.project)?.path ?? null;
    const start = await configSearchStart(cwd, this.host.orange.paths);
    const real = await realpath(start).catch(() => start);
    for (const project of projects) {
      const root = await realpath(project.path).catch(() => project.path);
      const inside = relative(root, real);
      if (inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !inside.startsWith(sep))) return start;
    }
    return null;
  }

  private accept(socket: Socket): void {
    this.open.add(socket);
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    void ended.then(() => this.open.delete(socket));
    socket.on('error', () => undefined);
    // A caller that never finishes its request is let go (it holds a connection of the few there are).
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    let buffered = '';
    socket.setEncoding('utf8');
    const onData = (chunk: string) => {
      // Only the new part is searched: a request arrives in many chunks.
      const newline = chunk.indexOf('\n');
      const end = newline < 0 ? -1 : buffered.length + newline;
      buffered += chunk;
      if (end < 0 && buffered.length <= REQUEST_MAX_BYTES) return;
      socket.off('data', onData);
      socket.setTimeout(0);
      const line = end < 0 ? null : buffered.slice(0, end);
      const work = this.handle(socket, line, ended).catch((error: unknown) => {
        this.log.error('gateway call failed', { error: error instanceof Error ? error.message : String(error) });
        socket.destroy();
      });
      this.running.add(work);
      void work.finally(() => this.running.delete(work));
    };
    socket.on('data', onData);
  }

  private async handle(socket: Socket, line: string | null, ended: Promise<void>): Promise<void> {
    const reply = (answer: GatewayReply) => socket.end(`${JSON.stringify(answer)}\n`);
    const parsed = line === null ? null : parseRequest(line);
    if (parsed === null) {
      reply(await refusal(new OrangeError('E_USAGE', `the gateway takes one request of at most ${REQUEST_MAX_BYTES} bytes, as a line of JSON`), false));
      return;
    }
    const request = parsed;
    const json = request.argv.includes('--json');
    const words = servedWords(request.argv, this.caller);
    if (request.v !== GATEWAY_VERSION || words === null) {
      const why = request.v !== GATEWAY_VERSION ? `speaks version ${GATEWAY_VERSION} of its protocol, not ${request.v}` : `does not serve orange ${request.argv.slice(0, 3).join(' ')}`;
      reply(await refusal(new OrangeError('E_USAGE', `the gateway ${why}; run the orange CLI itself`), json));
      return;
    }
    const env: NodeJS.ProcessEnv = { ...request.env };
    const claim = identityClaim(env);
    let caller: Caller;
    try {
      if (this.caller === 'agent') {
        // Only an agent Orange started, with the identity it was given: checked before anything is read.
        if (claim === null || claim === 'partial') throw new OrangeError('E_FORBIDDEN', "the gateway serves only agents' calls, with the identity Orange gave their spawn");
        caller = await callerOf(env, this.host.orange.store);
      } else if (claim !== null) {
        throw new OrangeError('E_FORBIDDEN', "a call with an agent's identity goes to the agents' socket, not the people's");
      } else {
        caller = { kind: 'person' };
      }
    } catch (error) {
      reply(await refusal(error, json));
      return;
    }
    // A person's merge must commit and push, and a task's agent start, as their own CLI would: served only in the same environment.
    const differs = this.caller === 'person' ? environmentDifference(request.env, process.env) : null;
    if (differs !== null) {
      this.log.debug("person's call left to the CLI", { command: words.join(' '), differs });
      reply({ refer: `this Orange's ${differs} differs from the caller's` });
      return;
    }
    const id = words.join(':');
    const task = caller.kind === 'agent' ? caller.task : null;
    // The server picks the config, never the caller's directory: an agent's is its project's; a
    // person's must lie in a registered project (or one of its worktrees), else the CLI runs it.
    const dir = await this.configDir(task, request.cwd);
    if (dir === null) {
      this.log.debug("person's call left to the CLI", { command: words.join(' '), cwd: request.cwd });
      reply({ refer: 'the caller is not in a registered project' });
      return;
    }
    const call: ServedCall = {
      cwd: request.cwd,
      env,
      stdin: request.stdin,
      caller,
      orange: () => this.host.orangeFor(dir),
      stdout: '',
      stderr: '',
      exitCode: 0,
    };
    // An exit report's sender is leaving: it is told the report is taken, then the report is acted on.
    // Only an exit report is taken so: any other call is answered with what it printed.
    const detach = request.detach === true && id === 'agent:exited';
    if (detach) reply({ accepted: true });
    const started = performance.now();
    const keep = (work: Promise<unknown>) => {
      this.kept.add(work);
      void work.finally(() => this.kept.delete(work));
    };
    await withCallOrigin({ env, pid: request.pid, ended, keep }, () =>
      serve(call, async () => {
        try {
          await this.host.config.runCommand(id, request.argv.slice(words.length));
        } catch (error) {
          // What a command's own catch rethrows (oclif's exit, with its code), or a failure before the command ran.
          const exit = (error as { oclif?: { exit?: unknown } }).oclif?.exit;
          if (typeof exit === 'number') call.exitCode = exit;
          else if (call.exitCode === 0) {
            writeError(error instanceof Error ? error.message : String(error), 'E_INTERNAL', json);
            call.exitCode = 1;
          }
        }
      }),
    );
    this.log.debug(this.caller === 'agent' ? 'agent call served' : "person's call served", { task: task?.id ?? null, command: words.join(' '), exit: call.exitCode, ms: Math.round(performance.now() - started) });
    if (detach) {
      if (call.exitCode !== 0) this.log.warn('exit report failed', { task: task?.id ?? null, stderr: call.stderr.trim() });
      return;
    }
    reply({ stdout: call.stdout, stderr: call.stderr, exit: call.exitCode });
  }
}

function parseRequest(line: string): GatewayRequest | null {
  try {
    const result = requestSchema.safeParse(JSON.parse(line));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}

/** The reply a refused call gets: the CLI's one error line (or JSON object), exit 1 or 2. */
async function refusal(error: unknown, json: boolean): Promise<GatewayReply> {
  const call: ServedCall = { cwd: '/', env: {}, stdin: '', caller: { kind: 'person' }, orange: () => Promise.reject(new Error('no Orange')), stdout: '', stderr: '', exitCode: 1 };
  const orangeError = error instanceof OrangeError ? error : null;
  await serve(call, async () => writeError(error instanceof Error ? error.message : String(error), orangeError?.code ?? 'E_INTERNAL', json));
  return { stdout: call.stdout, stderr: call.stderr, exit: orangeError?.code === 'E_USAGE' ? 2 : 1 };
}

/** True when something listens on `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
