import { describe, expect, it } from 'vitest';
import { decideAccess, servedHosts, sessionCookie, type AccessPolicy, type RequestFacts } from './access-guard.js';

const TOKEN = 'T'.repeat(43);
const policy: AccessPolicy = { token: TOKEN, cookie: 'orange-7420', hosts: servedHosts('127.0.0.1', 7420) };

function request(facts: Partial<Omit<RequestFacts, 'url'>> & { path?: string } = {}): RequestFacts {
  return {
    method: facts.method ?? 'GET',
    url: new URL(facts.path ?? '/api/session', 'http://x'),
    host: 'host' in facts ? facts.host : '127.0.0.1:7420',
    origin: facts.origin,
    cookie: 'cookie' in facts ? facts.cookie : `other=1; orange-7420=${TOKEN}`,
    contentType: facts.contentType,
    upgrade: facts.upgrade ?? false,
  };
}

describe('decideAccess', () => {
  it('lets a signed-in read through', () => {
    expect(decideAccess(request(), policy)).toEqual({ kind: 'allow' });
    expect(decideAccess(request({ host: 'localhost:7420' }), policy)).toEqual({ kind: 'allow' });
  });

  it('refuses a Host it does not serve, even with the token (DNS rebinding)', () => {
    expect(decideAccess(request({ host: 'evil.example:7420' }), policy)).toMatchObject({ kind: 'deny', status: 421 });
    expect(decideAccess(request({ host: '127.0.0.1:7421' }), policy)).toMatchObject({ kind: 'deny', status: 421 });
    expect(decideAccess(request({ host: undefined }), policy)).toMatchObject({ kind: 'deny', status: 421 });
    expect(decideAccess(request({ host: 'evil.example:7420', path: `/?token=${TOKEN}`, cookie: undefined }), policy)).toMatchObject({ kind: 'deny', status: 421 });
  });

  it('turns the printed URL into a sign-in that drops the token from the address', () => {
    expect(decideAccess(request({ path: `/?token=${TOKEN}`, cookie: undefined }), policy)).toEqual({ kind: 'login', to: '/' });
    expect(decideAccess(request({ path: `/board?x=1&token=${TOKEN}`, cookie: undefined }), policy)).toEqual({ kind: 'login', to: '/board?x=1' });
    expect(decideAccess(request({ path: '/?token=wrong', cookie: undefined }), policy)).toMatchObject({ kind: 'deny', status: 401 });
  });

  it('never signs in from a POST or a WebSocket carrying the token', () => {
    const posted = decideAccess(request({ method: 'POST', path: `/api/tasks?token=${TOKEN}`, cookie: undefined, origin: 'http://127.0.0.1:7420', contentType: 'application/json' }), policy);
    expect(posted).toMatchObject({ kind: 'deny', status: 401 });
    expect(decideAccess(request({ upgrade: true, path: `/api/terminal?token=${TOKEN}`, cookie: undefined, origin: 'http://127.0.0.1:7420' }), policy)).toMatchObject({ kind: 'deny', status: 401 });
  });

  it('refuses a request without the cookie, or with another one', () => {
    expect(decideAccess(request({ cookie: undefined }), policy)).toMatchObject({ kind: 'deny', status: 401 });
    expect(decideAccess(request({ cookie: `orange-7420=${'X'.repeat(43)}` }), policy)).toMatchObject({ kind: 'deny', status: 401 });
    expect(decideAccess(request({ cookie: `orange-7421=${TOKEN}` }), policy)).toMatchObject({ kind: 'deny', status: 401 });
    expect(decideAccess(request({ cookie: `orange-7420=${TOKEN}x` }), policy)).toMatchObject({ kind: 'deny', status: 401 });
  });

  it('lets only its own origin act, with JSON', () => {
    const own = { method: 'POST', origin: 'http://127.0.0.1:7420', contentType: 'application/json; charset=utf-8' } as const;
    expect(decideAccess(request(own), policy)).toEqual({ kind: 'allow' });
    expect(decideAccess(request({ ...own, origin: 'http://evil.example' }), policy)).toMatchObject({ kind: 'deny', status: 403 });
    expect(decideAccess(request({ ...own, origin: undefined }), policy)).toMatchObject({ kind: 'deny', status: 403 });
    expect(decideAccess(request({ ...own, origin: 'null' }), policy)).toMatchObject({ kind: 'deny', status: 403 });
    // The page at localhost acts on localhost, not through the other name.
    expect(decideAccess(request({ ...own, host: 'localhost:7420', origin: 'http://127.0.0.1:7420' }), policy)).toMatchObject({ kind: 'deny', status: 403 });
    expect(decideAccess(request({ ...own, contentType: 'text/plain' }), policy)).toMatchObject({ kind: 'deny', status: 415 });
    expect(decideAccess(request({ ...own, contentType: 'application/x-www-form-urlencoded' }), policy)).toMatchObject({ kind: 'deny', status: 415 });
  });

  it('checks the Origin of a WebSocket', () => {
    expect(decideAccess(request({ upgrade: true, origin: 'http://127.0.0.1:7420' }), policy)).toEqual({ kind: 'allow' });
    expect(decideAccess(request({ upgrade: true, origin: 'http://evil.example' }), policy)).toMatchObject({ kind: 'deny', status: 403 });
    expect(decideAccess(request({ upgrade: true }), policy)).toMatchObject({ kind: 'deny', status: 403 });
  });
});

describe('servedHosts', () => {
  it('answers to the loopback names on a loopback address only', () => {
    expect([...servedHosts('127.0.0.1', 80)].sort()).toEqual(['127.0.0.1:80', '[::1]:80', 'localhost:80']);
    expect([...servedHosts('192.168.1.5', 80, ['box.lan'])].sort()).toEqual(['192.168.1.5:80', 'box.lan:80']);
    expect([...servedHosts('::1', 80)].sort()).toEqual(['127.0.0.1:80', '[::1]:80', 'localhost:80']);
  });
});

describe('sessionCookie', () => {
  it('is HttpOnly and SameSite=Strict', () => {
    expect(sessionCookie(policy)).toBe(`orange-7420=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`);
  });
});
