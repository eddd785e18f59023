import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { execa, type ResultPromise } from 'execa';
import { CLI, type Sandbox } from './sandbox.js';

/** A running `orange web` of a sandbox: its printed URL and what it is made of. */
export interface RunningWeb {
  /** The URL it printed, token and all. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  readonly port: number;
  readonly token: string;
  /** `name=value` of the cookie the page signs in with. */
  readonly cookie: string;
  readonly process: ResultPromise;
  /** What it printed on stderr so far (for failure messages). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `orange web --port 0` in the sandbox and waits for the URL it prints. */
export async function startWeb(box: Sandbox, args: readonly string[] = []): Promise<RunningWeb> {
  const child = execa(process.execPath, [CLI, 'web', '--port', '0', ...args], { cwd: box.repo, env: box.env, extendEnv: false, reject: false, stdin: 'ignore' });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!/\n/.test(stdout)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`orange web printed no URL (exit ${String(child.exitCode)}):\n${stdout}\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const url = stdout.split('\n')[0]!.trim();
  const parsed = new URL(url);
  const token = parsed.searchParams.get('token') ?? '';
  const port = Number(parsed.port);
  return {
    url,
    base: `http://127.0.0.1:${port}`,
    port,
    token,
    cookie: `orange-${port}=${token}`,
    process: child,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      const result = await child;
      if (result.exitCode !== 0 && !result.isTerminated) throw new Error(`orange web exited ${String(result.exitCode)}: ${stderr}`);
    },
  };
}

/** One raw HTTP exchange, headers as given (fetch would add its own Origin rules). */
export function rawRequest(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string; upgraded: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/', headers: options.headers ?? {}, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, upgraded: false }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '', upgraded: true });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The Debian Chromium the browser tests drive; null (with why) when this machine has none. */
export function chromiumPath(): string | null {
  for (const path of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(path)) return path;
  return null;
}

/** The flags that start Chromium headless here (no sandbox as root, no calls to Google's hosts). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];
