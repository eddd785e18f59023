import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Config } from '@oclif/core/config';
import {
  callerOf,
  GATEWAY_VERSION,
  identityClaim,
  OrangeError,
  REQUEST_MAX_BYTES,
  servedWords,
  withCallOrigin,
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
  /** An Orange for the config searched from `cwd` (the host caches them). */
  readonly orangeFor: (cwd: string) => Promise<Orange>;
}

/**
 * Answers agents' calls (`task update`, `task section set`, `task show`, exit reports) for a
 * long-running Orange, over a Unix socket under `$ORANGE_HOME/gateway/`: a call costs the agent a
 * small client instead of a whole CLI start (config, plugins). Only a call carrying an agent
 * identity Orange gave is served, and only for that agent's own task (docs/architecture.md).
 */
export class AgentGateway {
  private server: Server | null = null;
  private readonly open = new Set<Socket>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly log: Logger;

  constructor(private readonly host: GatewayHost) {
    this.log = host.orange.log.child('gateway');
  }

  get socketPath(): string {
    return this.host.orange.paths.gatewaySocket;
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
        server.on('error', (e) => this.log.error('gateway error', { error: e.message }));
        this.server = server;
        this.log.info('gateway listening', { socket: path });
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
    for (const socket of this.open) socket.destroy();
    await closed;
    // A socket file another Orange made since (after ours was taken for stale) is not ours to remove.
    const info = await lstat(this.socketPath).catch(() => null);
    if (info?.isSocket()) await unlink(this.socketPath).catch(() => undefined);
  }

  private accept(socket: Socket): void {
    this.open.add(socket);
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    void ended.then(() => this.open.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.setEncoding('utf8');
    const onData = (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end < 0 && buffered.length <= REQUEST_MAX_BYTES) return;
      socket.off('data', onData);
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
    const words = servedWords(request.argv);
    if (request.v !== GATEWAY_VERSION || words === null) {
      const why = request.v !== GATEWAY_VERSION ? `speaks version ${GATEWAY_VERSION} of its protocol, not ${request.v}` : `does not serve orange ${request.argv.slice(0, 3).join(' ')}`;
      reply(await refusal(new OrangeError('E_USAGE', `the gateway ${why}; run the orange CLI itself`), json));
      return;
    }
    const env: NodeJS.ProcessEnv = { ...request.env };
    const claim = identityClaim(env);
    try {
      // Only an agent Orange started, with the identity it was given: checked before anything is read.
      if (claim === null || claim === 'partial') throw new OrangeError('E_FORBIDDEN', "the gateway serves only agents' calls, with the identity Orange gave their spawn");
      await callerOf(env, this.host.orange.store);
    } catch (error) {
      reply(await refusal(error, json));
      return;
    }
    if (typeof claim !== 'object' || claim === null) return;
    const call: ServedCall = {
      cwd: request.cwd,
      env,
      stdin: request.stdin,
      task: { project: claim.project, id: claim.id },
      orangeFor: this.host.orangeFor,
      stdout: '',
      stderr: '',
      exitCode: 0,
    };
    // An exit report's sender is leaving: it is told the report is taken, then the report is acted on.
    if (request.detach) reply({ accepted: true });
    const id = words.join(':');
    const started = performance.now();
    await withCallOrigin({ env, pid: request.pid, ended }, () =>
      serve(call, async () => {
        try {
          await this.host.config.runCommand(id, request.argv.slice(words.length));
        } catch (error) {
          // What a command's own catch rethrows (oclif's exit), or a failure before the command ran.
          if (call.exitCode === 0) {
            writeError(error instanceof Error ? error.message : String(error), 'E_INTERNAL', json);
            call.exitCode = 1;
          }
        }
      }),
    );
    this.log.debug('agent call served', { task: claim.id, command: words.join(' '), exit: call.exitCode, ms: Math.round(performance.now() - started) });
    if (request.detach) {
      if (call.exitCode !== 0) this.log.warn('exit report failed', { task: claim.id, stderr: call.stderr.trim() });
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
  const call: ServedCall = { cwd: '/', env: {}, stdin: '', task: { project: '', id: '' }, orangeFor: () => Promise.reject(new Error('no Orange')), stdout: '', stderr: '', exitCode: 1 };
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
