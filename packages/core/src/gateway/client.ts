import { readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isatty } from 'node:tty';
import { GATEWAY_SOCKETS, GATEWAY_VERSION, REQUEST_MAX_BYTES, requestEnv, servedWords, type GatewayCaller, type GatewayReply, type GatewayRequest } from './protocol.js';

/** The Orange home an environment names: `$ORANGE_HOME`, default `~/orange` (OrangePaths.fromEnv asks this too). */
export function orangeHomeFor(env: NodeJS.ProcessEnv): string {
  return resolve(env.ORANGE_HOME && env.ORANGE_HOME.trim() !== '' ? env.ORANGE_HOME : join(homedir(), 'orange'));
}

/** Where the gateway listens for `caller` under this environment's Orange home. */
export function gatewaySocketFor(env: NodeJS.ProcessEnv, caller: GatewayCaller = 'agent'): string {
  return join(orangeHomeFor(env), ...GATEWAY_SOCKETS[caller]);
}

const IDENTITY_PARTS = ['ORANGE_AGENT_SECRET', 'ORANGE_SPAWN_ID'];

/**
 * Who would make this call through a gateway: an agent (it carries a secret), a person's script
 * (no identity, and no terminal on standard input: a person at a terminal runs the CLI, which
 * may ask them things), or nobody (null: the CLI runs it).
 */
export function gatewayCaller(env: NodeJS.ProcessEnv, stdinIsTerminal: boolean): GatewayCaller | null {
  if (env.ORANGE_AGENT_SECRET) return 'agent';
  if (IDENTITY_PARTS.some((name) => env[name]) || stdinIsTerminal) return null;
  return 'person';
}

/** What a call through the gateway came to: its reply, or why the CLI must carry it out itself. */
export type GatewayOutcome =
  | { readonly kind: 'reply'; readonly reply: GatewayReply }
  /** No gateway listens (no socket, a stale one, none reachable): nothing was sent. */
  | { readonly kind: 'absent' }
  /** The request was sent and the connection ended without an answer: it may or may not have been carried out. */
  | { readonly kind: 'cut'; readonly reason: string };

/** Connects to the gateway: the open connection, or null when nothing listens (no socket, a stale one). */
export function openGateway(socket: string): Promise<Socket | null> {
  return new Promise((done) => {
    const conn = connect(socket);
    conn.once('connect', () => {
      conn.removeAllListeners('error');
      done(conn);
    });
    conn.once('error', () => done(null));
  });
}

/** Sends one request (as its JSON line) on an open connection and reads its one-line reply, within `timeoutMs` if given. Never throws. */
export function exchangeOn(conn: Socket, line: string, timeoutMs?: number): Promise<GatewayOutcome> {
  return new Promise((done) => {
    let answer = '';
    conn.setEncoding('utf8');
    if (timeoutMs !== undefined) {
      conn.setTimeout(timeoutMs, () => {
        conn.destroy();
        done({ kind: 'cut', reason: `no answer within ${timeoutMs} ms` });
      });
    }
    conn.on('data', (chunk: string) => {
      answer += chunk;
      const end = answer.indexOf('\n');
      if (end < 0) return;
      conn.destroy();
      try {
        done({ kind: 'reply', reply: JSON.parse(answer.slice(0, end)) as GatewayReply });
      } catch {
        done({ kind: 'cut', reason: 'its answer was not readable' });
      }
    });
    conn.on('error', (error: NodeJS.ErrnoException) => done({ kind: 'cut', reason: error.code ?? error.message }));
    conn.on('close', () => done({ kind: 'cut', reason: 'the connection closed' }));
    conn.write(`${line}\n`);
  });
}

/** Connects, sends one request and reads its reply. Never throws. */
export async function exchange(socket: string, request: GatewayRequest, timeoutMs?: number): Promise<GatewayOutcome> {
  const conn = await openGateway(socket);
  return conn === null ? { kind: 'absent' } : exchangeOn(conn, JSON.stringify(request), timeoutMs);
}

/** Flags of `task section set` that take a value: a `-` after one of them is that value, not standard input. */
const VALUE_FLAGS = new Set(['--project', '-p', '--task', '--text', '--file']);
const SECTION_MAX_BYTES = 1024 * 1024;

/**
 * The request for `argv` (an agent's `orange …`), or null when the full CLI must run it: not an
 * agent's call, not a command the gateway serves, help, or input only the CLI can report on (an
 * unreadable `--file`). A `--file PATH` is read here and sent as standard input: the server reads
 * no file for a caller (a container's paths are not its own).
 */
export async function gatewayRequest(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  stdin: () => Promise<string>,
  caller: GatewayCaller | null = gatewayCaller(env, false),
): Promise<GatewayRequest | null> {
  if (caller === null) return null;
  const words = servedWords(argv, caller);
  if (!words || argv.includes('--help') || argv.includes('-h')) return null;
  const args = [...argv];
  let input = '';
  const contextFromStdin = (arg: string, i: number) => ['--context=-', '-c=-', '-c-'].includes(arg) || ((arg === '--context' || arg === '-c') && args[i + 1] === '-');
  if (words[1] === 'create' && args.some(contextFromStdin)) input = await stdin();
  if (words[1] === 'section') {
    let wantsStdin = false;
    for (let i = words.length; i < args.length; i++) {
      const arg = args[i] ?? '';
      if (arg === '--') break;
      const value = arg === '--file' ? args[i + 1] : arg.startsWith('--file=') ? arg.slice('--file='.length) : undefined;
      if (value !== undefined && value !== '-') {
        const text = readSmallFile(value, cwd);
        if (text === null) return null;
        input = text;
        if (arg === '--file') args.splice(i, 2, '--file', '-');
        else args.splice(i, 1, '--file=-');
        i++;
        continue;
      }
      if (value === '-' || (arg === '-' && !VALUE_FLAGS.has(args[i - 1] ?? ''))) wantsStdin = true;
      if (VALUE_FLAGS.has(arg)) i++;
    }
    if (wantsStdin) input = await stdin();
  }
  return { v: GATEWAY_VERSION, argv: args, cwd, env: requestEnv(env, caller), stdin: input, pid: process.pid };
}

function readSmallFile(file: string, cwd: string): string | null {
  try {
    const path = resolve(cwd, file);
    const info = statSync(path);
    if (!info.isFile() || info.size > SECTION_MAX_BYTES) return null;
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** What a call through the gateway came to: its exit code, or the CLI must run it (given the standard input already read, if any). */
export type GatewayCall = { readonly exit: number } | { readonly stdin: string | null };

/**
 * The standard input a call read before it fell back to the CLI: `bin/run.cjs` leaves it here, and
 * the CLI's `readStdin` takes it instead of the (already drained) stream.
 */
export const BUFFERED_STDIN = Symbol.for('orange.stdin');

/**
 * Runs an agent's (or a person's script's) `orange …` through a long-running Orange's gateway:
 * prints the reply and returns its exit code, or says the CLI must run the command itself (no
 * gateway, a call it does not serve or refers back, a request too large to send). A request cut
 * off after it was sent is not sent again (it may have been carried out): the caller is told so,
 * with exit 1.
 */
export async function callGateway(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<GatewayCall> {
  const caller = gatewayCaller(env, isatty(0));
  if (caller === null || servedWords(argv, caller) === null) return { stdin: null };
  // Connected first: standard input is read only for a gateway that listens.
  const conn = await openGateway(gatewaySocketFor(env, caller));
  if (conn === null) return { stdin: null };
  let read: string | null = null;
  const request = await gatewayRequest(argv, env, process.cwd(), async () => (read = await readAll()), caller);
  const line = request === null ? null : JSON.stringify(request);
  if (line === null || Buffer.byteLength(line) > REQUEST_MAX_BYTES) {
    conn.destroy();
    return { stdin: read };
  }
  const outcome = await exchangeOn(conn, line);
  // Nothing was done: the CLI carries the call out itself.
  if (outcome.kind === 'absent' || (outcome.kind === 'reply' && 'refer' in outcome.reply)) return { stdin: read };
  if (outcome.kind === 'cut' || !('exit' in outcome.reply)) {
    const reason = outcome.kind === 'cut' ? outcome.reason : 'it answered out of turn';
    process.stderr.write(`orange: the Orange serving this call stopped answering (${reason}); the call may or may not have been carried out: check with orange task show\n`);
    return { exit: 1 };
  }
  process.stdout.write(outcome.reply.stdout);
  process.stderr.write(outcome.reply.stderr);
  return { exit: outcome.reply.exit };
}
