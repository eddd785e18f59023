import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from './sandbox.js';
import { rawRequest, startWeb, type RunningWeb } from './web-server.js';

let box: Sandbox | undefined;
let web: RunningWeb | undefined;
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await box?.cleanup();
  box = undefined;
});

describe('orange web is safe to leave open', () => {
  it('lets in only the printed URL, then its cookie; refuses a foreign Host, a foreign Origin and a form post, changing nothing', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['chore/kept', 'a task nobody may cancel from elsewhere', '--no-spawn']);
    web = await startWeb(box);
    const { port, token, cookie } = web;
    const host = `127.0.0.1:${port}`;
    const own = `http://${host}`;

    // Without the token: nothing, not even the page.
    for (const path of ['/', '/api/session', '/api/events', `/api/tasks/demo/${id}`]) {
      const answer = await rawRequest(port, { path, headers: { Host: host } });
      expect(answer.status, `${path}: ${answer.body}`).toBe(401);
      expect(answer.body).not.toContain(id);
    }
    expect((await rawRequest(port, { path: '/?token=wrong', headers: { Host: host } })).status).toBe(401);

    // The printed URL signs the browser in with a cookie no script can read and no other site sends.
    const login = await rawRequest(port, { path: `/?token=${token}`, headers: { Host: host } });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/');
    expect(String(login.headers['set-cookie'])).toBe(`${cookie}; HttpOnly; SameSite=Strict; Path=/`);
    expect(login.headers['content-security-policy']).toContain("script-src 'self'");
    const session = await rawRequest(port, { path: '/api/session', headers: { Host: host, Cookie: cookie } });
    expect(session.status, session.body).toBe(200);
    expect(JSON.parse(session.body)).toMatchObject({ projects: ['demo'] });

    // DNS rebinding: another site's name resolved to 127.0.0.1 carries its own Host.
    for (const method of ['GET', 'POST']) {
      const rebound = await rawRequest(port, { method, path: `/api/tasks/demo/${id}`, headers: { Host: `evil.example:${port}`, Cookie: cookie, Origin: `http://evil.example:${port}`, 'Content-Type': 'application/json' }, body: '{}' });
      expect(rebound.status, rebound.body).toBe(421);
    }

    // A page of another site posting with the person's cookie; a form (no JSON); no Origin at all.
    const cancel = JSON.stringify({ action: 'cancel' });
    const foreign = await rawRequest(port, { method: 'POST', path: `/api/tasks/demo/${id}/cancel`, headers: { Host: host, Cookie: cookie, Origin: 'http://evil.example', 'Content-Type': 'application/json' }, body: cancel });
    expect(foreign.status, foreign.body).toBe(403);
    const form = await rawRequest(port, { method: 'POST', path: `/api/tasks/demo/${id}/cancel`, headers: { Host: host, Cookie: cookie, Origin: own, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'action=cancel' });
    expect(form.status, form.body).toBe(415);
    const bare = await rawRequest(port, { method: 'POST', path: `/api/tasks/demo/${id}/cancel`, headers: { Host: host, Cookie: cookie, 'Content-Type': 'application/json' }, body: cancel });
    expect(bare.status, bare.body).toBe(403);
    const created = await rawRequest(port, { method: 'POST', path: '/api/tasks', headers: { Host: host, Origin: 'http://evil.example', Cookie: cookie, 'Content-Type': 'application/json' }, body: JSON.stringify({ project: 'demo', summary: 'planted' }) });
    expect(created.status).toBe(403);
    expect((await box.task(id)).meta.status).toBe('pending');
    const listed = await box.orange(['task', 'list', '--all', '--json']);
    expect(listed.stdout).not.toContain('planted');

    // The same cancel from the page's own origin goes through, the engine's way.
    const ours = await rawRequest(port, { method: 'POST', path: `/api/tasks/demo/${id}/cancel`, headers: { Host: host, Cookie: cookie, Origin: own, 'Content-Type': 'application/json' }, body: cancel });
    expect(ours.status, ours.body).toBe(200);
    expect(JSON.parse(ours.body).message).toContain('cancelled');
    expect((await box.task(id)).meta.status).toBe('cancelled');
    // Refused the same way as the CLI: a cancelled task cannot be cancelled again.
    const again = await rawRequest(port, { method: 'POST', path: `/api/tasks/demo/${id}/cancel`, headers: { Host: host, Cookie: cookie, Origin: own, 'Content-Type': 'application/json' }, body: cancel });
    expect(again.status, again.body).toBe(409);
    const cli = await box.orange(['task', 'cancel', id, '--yes']);
    expect(JSON.parse(again.body).error.message).toBe(cli.stderr.trim().replace(/^orange:\s*/, ''));
  });

  it('opens a terminal socket only for its own origin with the cookie', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['chore/sock', 'terminal target', '--no-spawn']);
    web = await startWeb(box);
    const { port, cookie } = web;
    const host = `127.0.0.1:${port}`;
    const upgrade = (headers: Record<string, string>) =>
      rawRequest(port, { path: `/api/terminal/demo/${id}/worker`, headers: { Host: host, Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers } });
    expect(await upgrade({ Cookie: cookie, Origin: 'http://evil.example' })).toMatchObject({ status: 403, upgraded: false });
    expect(await upgrade({ Cookie: cookie })).toMatchObject({ status: 403, upgraded: false });
    expect(await upgrade({ Origin: `http://${host}` })).toMatchObject({ status: 401, upgraded: false });
    expect(await upgrade({ Cookie: cookie, Origin: `http://${host}`, Host: `evil.example:${port}` })).toMatchObject({ status: 421, upgraded: false });
    expect(await upgrade({ Cookie: cookie, Origin: `http://${host}` })).toMatchObject({ status: 101, upgraded: true });
  });

  it('listens on another address only when told to mean it, and says so', async () => {
    box = await Sandbox.create();
    const refused = await box.orange(['web', '--port', '0', '--host', '0.0.0.0']);
    // A usage error (E_USAGE) exits 2.
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('--expose');
    web = await startWeb(box, ['--host', '0.0.0.0', '--expose']);
    await box.waitFor('the warning', async () => web!.stderr().includes('anyone who can reach'), 10_000);
    // Still answers only to the names it serves.
    expect((await rawRequest(web.port, { path: '/api/session', headers: { Host: `evil.example:${web.port}`, Cookie: web.cookie } })).status).toBe(421);
    expect((await rawRequest(web.port, { path: '/api/session', headers: { Host: `localhost:${web.port}`, Cookie: web.cookie } })).status).toBe(200);
  });
});
