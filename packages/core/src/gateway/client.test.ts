import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exchange, gatewayRequest, gatewaySocketFor } from './client.js';
import { GATEWAY_VERSION, type GatewayRequest } from './protocol.js';

const agent = { ORANGE_AGENT_SECRET: 's3cret', ORANGE_TASK_ID: 'abc', ORANGE_PROJECT: 'app', ORANGE_SPAWN_ID: 'sp1', ORANGE_HOME: '/h' };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-gateway-client-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gatewayRequest', () => {
  const noStdin = () => Promise.reject(new Error('standard input must not be read'));

  it('is null for a person (no identity), a command the gateway does not serve, and help', async () => {
    expect(await gatewayRequest(['task', 'update', '--status', 'working'], {}, dir, noStdin)).toBeNull();
    expect(await gatewayRequest(['task', 'merge', 'abc'], agent, dir, noStdin)).toBeNull();
    expect(await gatewayRequest(['task', 'update', '--help'], agent, dir, noStdin)).toBeNull();
    expect(await gatewayRequest(['task'], agent, dir, noStdin)).toBeNull();
  });

  it("carries the argv, the directory and only Orange's variables and the tmux pane (not PATH, not the prompt)", async () => {
    const env = { ...agent, PATH: '/bin', HOME: '/home/x', ORANGE_PROMPT: 'long', TMUX: '/tmp/tmux-1/default,1,0', TMUX_PANE: '%3' };
    const request = await gatewayRequest(['task', 'update', '--status', 'working'], env, dir, noStdin);
    expect(request).toEqual({
      v: GATEWAY_VERSION,
      argv: ['task', 'update', '--status', 'working'],
      cwd: dir,
      env: { ...agent, TMUX: env.TMUX, TMUX_PANE: '%3' },
      stdin: '',
      pid: process.pid,
    });
  });

  it('reads standard input for "-" and --file -, and not for a "-" that is the value of --text', async () => {
    const stdin = () => Promise.resolve('from stdin');
    expect((await gatewayRequest(['task', 'section', 'set', 'Plan', '-'], agent, dir, stdin))?.stdin).toBe('from stdin');
    expect((await gatewayRequest(['task', 'section', 'set', 'Plan', '--file', '-'], agent, dir, stdin))?.stdin).toBe('from stdin');
    expect((await gatewayRequest(['task', 'section', 'set', 'Plan', '--file=-'], agent, dir, stdin))?.stdin).toBe('from stdin');
    expect((await gatewayRequest(['task', 'section', 'set', 'Plan', '--text', '-'], agent, dir, noStdin))?.stdin).toBe('');
    expect((await gatewayRequest(['task', 'update', '-'], agent, dir, noStdin))?.stdin).toBe('');
  });

  it('reads a --file itself (relative to the caller) and sends it as standard input; an unreadable one is left to the CLI', async () => {
    await writeFile(join(dir, 'plan.md'), 'APPROACH: x\n');
    const request = await gatewayRequest(['task', 'section', 'set', 'Plan', '--file', 'plan.md', '--json'], agent, dir, noStdin);
    expect(request?.argv).toEqual(['task', 'section', 'set', 'Plan', '--file', '-', '--json']);
    expect(request?.stdin).toBe('APPROACH: x\n');
    expect((await gatewayRequest(['task', 'section', 'set', 'Plan', `--file=${join(dir, 'plan.md')}`], agent, dir, noStdin))?.argv).toEqual(['task', 'section', 'set', 'Plan', '--file=-']);
    expect(await gatewayRequest(['task', 'section', 'set', 'Plan', '--file', 'missing.md'], agent, dir, noStdin)).toBeNull();
    expect(await gatewayRequest(['task', 'section', 'set', 'Plan', '--file', dir], agent, dir, noStdin)).toBeNull();
  });

  it('finds the socket under ORANGE_HOME', () => {
    expect(gatewaySocketFor({ ORANGE_HOME: '/srv/orange' })).toBe('/srv/orange/gateway/agents.sock');
  });
});

describe('exchange', () => {
  const request: GatewayRequest = { v: GATEWAY_VERSION, argv: ['task', 'show'], cwd: '/', env: {}, stdin: '', pid: 1 };
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  function listen(onLine: (line: string, end: (text?: string) => void) => void): Promise<string> {
    const path = join(dir, 'gw.sock');
    server = createServer((socket) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += String(chunk);
        if (text.includes('\n')) onLine(text.trim(), (reply) => (reply === undefined ? socket.destroy() : socket.end(reply)));
      });
    });
    return new Promise((resolve) => server!.listen(path, () => resolve(path)));
  }

  it('is absent when nothing listens (no socket, or a stale one): nothing was sent', async () => {
    expect(await exchange(join(dir, 'none.sock'), request)).toEqual({ kind: 'absent' });
    await writeFile(join(dir, 'stale.sock'), '');
    expect(await exchange(join(dir, 'stale.sock'), request)).toEqual({ kind: 'absent' });
  });

  it('reads the one-line reply to the request it sent', async () => {
    let seen = '';
    const path = await listen((line, end) => {
      seen = line;
      end('{"stdout":"ok\\n","stderr":"","exit":0}\n');
    });
    expect(await exchange(path, request)).toEqual({ kind: 'reply', reply: { stdout: 'ok\n', stderr: '', exit: 0 } });
    expect(JSON.parse(seen)).toEqual(request);
  });

  it('is cut when the server hangs up without an answer, answers nonsense, or says nothing in time', async () => {
    const hangUp = await listen((_line, end) => end());
    expect((await exchange(hangUp, request)).kind).toBe('cut');
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const nonsense = await listen((_line, end) => end('not json\n'));
    expect(await exchange(nonsense, request)).toEqual({ kind: 'cut', reason: 'its answer was not readable' });
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const silent = await listen(() => undefined);
    expect(await exchange(silent, request, 200)).toEqual({ kind: 'cut', reason: 'no answer within 200 ms' });
  });
});
