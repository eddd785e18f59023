import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { OrangeError, type Orange } from '@orange/core';
import { MonitorDuty, OrangeActions, TaskFeed } from '@orange/dashboard/fleet';
import { WebSocketServer } from 'ws';
import { decideAccess, isLoopback, servedHosts, sessionCookie, type AccessPolicy } from './access-guard.js';
import { BoardEvents } from './board-events.js';
import { SECURITY_HEADERS, sendAppFile } from './static-files.js';
import { answerApi, type WebOperators } from './task-api.js';
import { serveTerminal, terminalTarget } from './terminal-socket.js';

/** The port `orange web` listens on unless told otherwise. */
export const DEFAULT_PORT = 7420;

export interface WebOptions {
  readonly orange: Orange;
  /** Only this project's tasks on the board; every project's when undefined. */
  readonly project?: string;
  /** The address to listen on (default 127.0.0.1). Anything but a loopback address needs `exposed`. */
  readonly host?: string;
  /** Default {@link DEFAULT_PORT}; 0 takes any free port. */
  readonly port?: number;
  /** The secret of the printed URL and the cookie (`webToken`). */
  readonly token: string;
  /** Set by the person who asked for a non-loopback address (`--expose`). */
  readonly exposed?: boolean;
  /** More names the page may be reached by (`--allow-host`), besides the bound address (and, on loopback, localhost). */
  readonly allowHosts?: readonly string[];
  readonly operators?: WebOperators;
  /** The Orange version, shown on the page. */
  readonly version: string;
  /** Milliseconds between the monitor's passes (default: the config's pollIntervalMs). */
  readonly pollIntervalMs?: number;
  /** Take the monitor's poll when no `orange monitor` of every project runs (default true). */
  readonly monitor?: boolean;
  /** The built page (default: `app/` beside this module, what `vite build` wrote). */
  readonly appDir?: string;
}

/** A running `orange web`. */
export interface WebServer {
  /** The address to open: with the token, which the page turns into a cookie. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

/**
 * Serves the fleet to a browser: the board pushed live (the dashboard's task feed, one file watch
 * for every open page), task pages, the agents' terminals over WebSockets, and every action the CLI
 * and the terminal dashboard have, through the same engine calls. Only a request carrying the
 * token, naming a Host this server serves and — when it acts — coming from its own origin gets in.
 */
export async function openWeb(options: WebOptions): Promise<WebServer> {
  const { orange } = options;
  const bind = options.host ?? '127.0.0.1';
  if (!isLoopback(bind) && !options.exposed) {
    throw new OrangeError('E_USAGE', `refusing to listen on ${bind}: anyone who can reach it and learns the token can run agents here; add --expose to mean it`);
  }
  const appDir = options.appDir ?? fileURLToPath(new URL('./app/', import.meta.url));
  const feed = new TaskFeed(orange, { project: options.project, pullRequestMs: options.pollIntervalMs });
  const duty = options.monitor === false ? null : new MonitorDuty(orange, options.pollIntervalMs, (report) => (report ? feed.knowPullRequests(report.pullRequestsRead) : feed.refreshPullRequests()));
  const actions = new OrangeActions(orange, { clarifyTask: options.operators?.clarifyTask });
  const events = new BoardEvents(feed);
  const log = orange.log.child('web');
  const context = {
    orange,
    actions,
    feed,
    operators: options.operators ?? {},
    project: options.project ?? null,
    version: options.version,
    refresh: (ref: { project: string; id: string }) => void feed.refreshTask(ref.project, ref.id).catch(() => undefined),
  };
  let policy: AccessPolicy | null = null;

  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
    if (!policy) return void response.writeHead(503).end();
    const url = new URL(request.url ?? '/', 'http://orange.invalid');
    const method = request.method ?? 'GET';
    const decision = decideAccess({ method, url, host: request.headers.host, origin: request.headers.origin, cookie: request.headers.cookie, contentType: request.headers['content-type'], upgrade: false }, policy);
    if (decision.kind === 'deny') {
      log.debug('web request refused', { method, path: url.pathname, status: decision.status, reason: decision.reason });
      response.writeHead(decision.status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      return void response.end(`${decision.reason}\n`);
    }
    if (decision.kind === 'login') {
      response.writeHead(303, { 'Set-Cookie': sessionCookie(policy), Location: decision.to, 'Cache-Control': 'no-store' });
      return void response.end();
    }
    if (url.pathname === '/api/events' && method === 'GET') return events.open(response);
    if (url.pathname.startsWith('/api/')) return void answerApi(context, request, response, url);
    if (method !== 'GET' && method !== 'HEAD') return void response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    void sendAppFile(appDir, url.pathname, response, method === 'HEAD').catch(() => response.destroy());
  };

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 128 * 1024 });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://orange.invalid');
    const decision = policy
      ? decideAccess({ method: request.method ?? 'GET', url, host: request.headers.host, origin: request.headers.origin, cookie: request.headers.cookie, contentType: undefined, upgrade: true }, policy)
      : ({ kind: 'deny', status: 503, reason: 'starting' } as const);
    const target = terminalTarget(url.pathname);
    if (decision.kind !== 'allow' || !target) {
      const [status, reason] = decision.kind === 'deny' ? [decision.status, decision.reason] : [404, 'no such terminal'];
      log.debug('web socket refused', { path: url.pathname, status, reason });
      socket.end(`HTTP/1.1 ${status} Refused\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${reason}\n`);
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => void serveTerminal(orange, ws, target));
  };

  const server = createServer(onRequest);
  server.on('upgrade', onUpgrade);
  const port = await listen(server, bind, options.port ?? DEFAULT_PORT);
  const hosts = servedHosts(bind, port, options.allowHosts ?? []);
  policy = { token: options.token, cookie: `orange-${port}`, hosts };
  const shown = bind === '0.0.0.0' || bind === '::' ? 'localhost' : bind.includes(':') ? `[${bind}]` : bind;
  if (bind === '0.0.0.0' || bind === '::') for (const name of ['localhost', '127.0.0.1']) hosts.add(`${name}:${port}`);
  const url = `http://${shown}:${port}/?token=${options.token}`;

  await feed.start();
  void feed.loaded.then(() => duty?.start());
  log.info('web started', { host: bind, port, project: options.project ?? null });

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    host: bind,
    close: () =>
      (closing ??= (async () => {
        events.close();
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await duty?.stop();
        await feed.stop();
        log.info('web stopped', { port });
      })()),
  };
}

function listen(server: ReturnType<typeof createServer>, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? `port ${port} on ${host} is in use (another orange web?); choose one with --port N, or --port 0 for any free one` : error.code === 'EADDRNOTAVAIL' ? `${host} is not an address of this machine` : `could not listen on ${host}:${port}: ${error.message}`;
      reject(new OrangeError('E_USAGE', why));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
