import { createHmac, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PostOptions {
  /** Per attempt: the whole request, connection to response, must end within this. */
  readonly timeoutMs: number;
  /** Attempts after the first, on a network error, a timeout, a 5xx or a 429. */
  readonly retries: number;
  /** Wait before retry n is `backoffMs * 2^(n-1)`. */
  readonly backoffMs: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** With a secret, `X-Orange-Signature-256: sha256=<hex HMAC-SHA256 of the body>`. */
  readonly secret?: string;
  /** Aborts the attempts and the waits between them (the notification's time limit). */
  readonly signal?: AbortSignal;
}

export interface PostResult {
  readonly status: number;
  readonly attempts: number;
}

/** The signature header value for `body`: `sha256=` and the hex HMAC-SHA256 with `secret`. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * POSTs `body` (already JSON) to `url`, retrying with exponential backoff. Resolves on a 2xx;
 * rejects with the last reason once attempts run out, at once on another 4xx (retrying would not
 * help), or when `signal` aborts. Every attempt carries the same `X-Orange-Delivery` id.
 */
export async function postJson(url: string, body: string, options: PostOptions): Promise<PostResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'orange-notifier',
    'x-orange-delivery': randomUUID(),
    ...options.headers,
  };
  if (options.secret) headers['x-orange-signature-256'] = signBody(body, options.secret);
  let lastError: Error = new Error('not sent');
  let attempts = 0;
  for (let attempt = 1; attempt <= options.retries + 1; attempt++) {
    options.signal?.throwIfAborted();
    attempts = attempt;
    if (attempt > 1) await wait(options.backoffMs * 2 ** (attempt - 2), options.signal);
    try {
      const status = await attemptPost(url, body, headers, options.timeoutMs, options.signal);
      if (status >= 200 && status < 300) return { status, attempts: attempt };
      lastError = new Error(`${redact(url)} answered ${status}`);
      if (status < 500 && status !== 429) break;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : error;
      lastError = error instanceof Error ? error : new Error(String(error));
    }
  }
  throw new Error(`${lastError.message} (after ${attempts} attempt${attempts === 1 ? '' : 's'})`);
}

function attemptPost(url: string, body: string, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      // No keep-alive: a CLI call that sent a notification must not linger on an idle socket.
      agent: false,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' },
      signal,
    });
    const timer = setTimeout(() => request.destroy(new Error(`${redact(url)} did not answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => {
        clearTimeout(timer);
        resolve(response.statusCode ?? 0);
      });
      response.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** A webhook URL's path is its secret (Slack's are): logs and errors show only the host. */
export function redact(url: string): string {
  try {
    const { protocol, host } = new URL(url);
    return `${protocol}//${host}/…`;
  } catch {
    return 'the webhook URL';
  }
}
