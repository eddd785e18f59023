import type { ServerResponse } from 'node:http';
import type { TaskSource } from '@orange/dashboard/fleet';
import { boardSnapshot } from './board-snapshot.js';

/** A comment line every so often keeps proxies and the browser from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/**
 * The board pushed to every open page as server-sent events (`event: board`): the whole board once
 * on connect, then each time the task feed publishes a board that differs from the last one sent.
 * One JSON text per change, shared by every page. A status written by any process reaches the feed
 * through its file watch (tens of ms), and the page right after.
 */
export class BoardEvents {
  private readonly clients = new Set<ServerResponse>();
  private last: { json: string; body: string } | null = null;
  private scheduled = false;
  private readonly unsubscribe: () => void;
  private readonly keepalive: NodeJS.Timeout;

  constructor(private readonly feed: TaskSource) {
    this.unsubscribe = feed.subscribe(() => this.schedule());
    this.keepalive = setInterval(() => this.broadcast(': keepalive\n\n'), KEEPALIVE_MS);
    this.keepalive.unref();
  }

  /** Makes `response` a stream of boards, starting with the current one. */
  open(response: ServerResponse): void {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.write('retry: 1000\n\n');
    this.clients.add(response);
    response.on('close', () => this.clients.delete(response));
    response.write(this.current().body);
  }

  /** Ends every stream (the server is stopping). */
  close(): void {
    this.unsubscribe();
    clearInterval(this.keepalive);
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  private schedule(): void {
    // Every change in one turn of the event loop goes out as one board.
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const before = this.last?.json;
      const now = this.current();
      if (now.json !== before) this.broadcast(now.body);
    });
  }

  /** The board as an event, rebuilt only when the feed's snapshot changed since the last one. */
  private current(): { json: string; body: string } {
    const snapshot = boardSnapshot(this.feed.snapshot(), 0);
    const json = JSON.stringify(snapshot);
    if (this.last?.json === json) return this.last;
    // sentAt is stamped on the text sent, not on the comparison (an equal board is not sent again).
    const body = `event: board\ndata: ${JSON.stringify({ ...snapshot, sentAt: Date.now() })}\n\n`;
    this.last = { json, body };
    return this.last;
  }

  private broadcast(text: string): void {
    for (const client of this.clients) client.write(text);
  }
}
