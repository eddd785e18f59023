import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** When it arrived whole (`Date.now()`). */
  readonly at: number;
}

/** What the receiver does with request n (1-based): answer with a status, or never answer. */
export type Reply = number | 'hang';

export interface HttpReceiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Resolves once `count` requests have arrived (each answered or held as told). */
  received(count: number): Promise<ReceivedRequest[]>;
  /** Answers every request held open so far ('hang') with 200. */
  release(): void;
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 (a free port) recording every request. `replies[n]` tells it how to
 * answer the n-th request (default 200); 'hang' keeps that request open until `release()` answers it
 * or the server closes (the client sees the connection dropped).
 */
export async function httpReceiver(replies: Reply[] = []): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const reply = replies[requests.length - 1] ?? 200;
      if (reply === 'hang') held.push(res);
      else res.writeHead(reply, { 'content-type': 'text/plain' }).end(reply === 200 ? 'ok' : 'no');
      for (const w of waiters.filter((w) => requests.length >= w.count)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/orange-secret-path`,
    requests,
    received(count) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(requests.slice()) }));
    },
    release() {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    },
    async close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
