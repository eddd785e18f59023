import { timingSafeEqual } from 'node:crypto';

/** Who may use the page: the secret, and the names and origins the server answers to. */
export interface AccessPolicy {
  readonly token: string;
  /** The cookie that carries the token (one per port: two servers on one host do not overwrite each other's). */
  readonly cookie: string;
  /** `host:port` values a request's Host header may carry (anything else is a rebound DNS name). */
  readonly hosts: ReadonlySet<string>;
}

/** What the guard reads of a request. */
export interface RequestFacts {
  readonly method: string;
  readonly url: URL;
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly cookie: string | undefined;
  readonly contentType: string | undefined;
  /** A WebSocket upgrade. */
  readonly upgrade: boolean;
}

/**
 * `allow`; `login`: the printed URL's token, good — set the cookie and send the browser to `to`
 * without the token in its address bar; `deny`: answer `status` with `reason` (one line).
 */
export type AccessDecision =
  | { readonly kind: 'allow' }
  | { readonly kind: 'login'; readonly to: string }
  | { readonly kind: 'deny'; readonly status: number; readonly reason: string };

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Decides one request, in the order an attack would be stopped: a Host the server does not serve
 * (DNS rebinding: a page of another site that resolved its own name to 127.0.0.1), then the token
 * (the URL's, once, or the cookie's), then, for anything that acts — a POST or a WebSocket, which
 * browsers send with an Origin — an Origin that is not this server's (a page of another site
 * posting here with the person's cookie; SameSite=Strict stops that too, this does not rely on it).
 * A POST must be JSON: a cross-site form cannot send that content type without asking first.
 */
export function decideAccess(request: RequestFacts, policy: AccessPolicy): AccessDecision {
  const host = request.host?.toLowerCase();
  if (!host || !policy.hosts.has(host)) return { kind: 'deny', status: 421, reason: `this server does not answer to host ${host ?? '(none)'}; open the URL orange web printed` };
  const offered = request.url.searchParams.get('token');
  if (offered !== null && !request.upgrade && SAFE_METHODS.has(request.method)) {
    if (!sameSecret(offered, policy.token)) return { kind: 'deny', status: 401, reason: 'wrong token; open the URL orange web printed' };
    const rest = new URLSearchParams(request.url.searchParams);
    rest.delete('token');
    const query = rest.toString();
    return { kind: 'login', to: `${request.url.pathname}${query ? `?${query}` : ''}` };
  }
  const carried = cookieValue(request.cookie, policy.cookie);
  if (carried === null || !sameSecret(carried, policy.token)) return { kind: 'deny', status: 401, reason: 'not signed in; open the URL orange web printed (it carries the token)' };
  const acts = request.upgrade || !SAFE_METHODS.has(request.method);
  if (acts) {
    const expected = `http://${host}`;
    if (request.origin !== expected) return { kind: 'deny', status: 403, reason: `refused: a request from origin ${request.origin ?? '(none)'} may not act here` };
  }
  if (!request.upgrade && !SAFE_METHODS.has(request.method) && !isJson(request.contentType)) {
    return { kind: 'deny', status: 415, reason: 'send JSON (Content-Type: application/json)' };
  }
  return { kind: 'allow' };
}

/** The `Set-Cookie` value that signs the browser in: script cannot read it, no other site sends it. */
export function sessionCookie(policy: AccessPolicy): string {
  return `${policy.cookie}=${policy.token}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The Host values a server bound to `bind`:`port` answers to: its own address, and the loopback names when it is one. */
export function servedHosts(bind: string, port: number, extraNames: readonly string[] = []): Set<string> {
  const names = new Set<string>([bind.includes(':') ? `[${bind}]` : bind, ...extraNames.map((name) => (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name))]);
  if (isLoopback(bind)) for (const name of ['localhost', '127.0.0.1', '[::1]']) names.add(name);
  return new Set([...names].map((name) => `${name.toLowerCase()}:${port}`));
}

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\.\d+\.\d+\.\d+$/.test(address);
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

function sameSecret(offered: string, token: string): boolean {
  const a = Buffer.from(offered);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}
