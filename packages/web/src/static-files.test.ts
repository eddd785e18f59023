import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendAppFile } from './static-files.js';

let dir: string | undefined;
let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (dir) await rm(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

/** Serves `<dir>/app` and returns how a raw path is answered (the path is sent as is, not normalised by a client). */
async function serve(): Promise<(path: string) => Promise<{ status: number; body: string; type: string | null }>> {
  dir = await mkdtemp(join(tmpdir(), 'orange-web-static-'));
  await mkdir(join(dir, 'app/assets'), { recursive: true });
  await writeFile(join(dir, 'app/index.html'), '<!doctype html><title>orange</title>');
  await writeFile(join(dir, 'app/assets/main-1.js'), 'console.log(1)');
  await writeFile(join(dir, 'secret.txt'), 'outside');
  const app = join(dir, 'app');
  server = createServer((request, response) => void sendAppFile(app, new URL(request.url ?? '/', 'http://x').pathname, response, false));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return async (path) => {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] ?? null }));
      });
      req.on('error', reject);
      req.end();
    });
  };
}

describe('sendAppFile', () => {
  it('serves the index at / and hashed assets with their types', async () => {
    const get = await serve();
    expect(await get('/')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    expect(await get('/assets/main-1.js')).toMatchObject({ status: 200, body: 'console.log(1)', type: 'text/javascript; charset=utf-8' });
  });

  it('never serves a file outside the page, however the path is spelled', async () => {
    const get = await serve();
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%2e%2e%2fsecret.txt', '/assets', '/nope.js', '/%00', '/%zz']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('outside');
    }
  });
});
