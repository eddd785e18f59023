import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

/**
 * Headers on every answer: the page runs only its own scripts (no inline script, no eval, no other
 * origin), cannot be framed (no clickjacking of its buttons), and leaks no address to a link's site.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/**
 * Sends a file of the built page (`dir`): `/` is its index.html; a path outside `dir` or a file it
 * does not have is a 404. Hashed assets are cached for good, the index never (a rebuilt page loads).
 */
export async function sendAppFile(dir: string, path: string, response: ServerResponse, head: boolean): Promise<void> {
  const relative = path === '/' ? 'index.html' : decodeSafely(path.slice(1));
  const file = relative === null ? null : normalize(join(dir, relative));
  const info = file && (file + sep).startsWith(normalize(dir + sep)) && file !== normalize(dir) ? await stat(file).catch(() => null) : null;
  if (!file || !info?.isFile()) {
    response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    response.end('not found\n');
    return;
  }
  const immutable = relative!.startsWith('assets/');
  response.writeHead(200, {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-store',
  });
  if (head) return void response.end();
  createReadStream(file).pipe(response);
}

function decodeSafely(path: string): string | null {
  try {
    const decoded = decodeURIComponent(path);
    return decoded.includes('\0') ? null : decoded;
  } catch {
    return null;
  }
}
