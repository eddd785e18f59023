import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exchange, gatewayCaller, gatewayRequest, gatewaySocketFor } from './client.js';
import { environmentDifference, GATEWAY_VERSION, type GatewayRequest } from './protocol.js';

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

  it("compares two environments but for a shell's own variables", () => {
    expect(environmentDifference({ PATH: '/bin', PWD: '/a', TERM: 'x' }, { PATH: '/bin', PWD: '/b' })).toBeNull();
    expect(environmentDifference({ PATH: '/bin', GIT_COMMITTER_NAME: 'Ann' }, { PATH: '/bin' })).toBe('GIT_COMMITTER_NAME');
    expect(environmentDifference({ ORANGE_TMUX_SOCKET: 'a' }, { ORANGE_TMUX_SOCKET: 'b' })).toBe('ORANGE_TMUX_SOCKET');
  });

  it('finds each socket under ORANGE_HOME', () => {
    expect(gatewaySocketFor({ ORANGE_HOME: '/srv/orange' })).toBe('/srv/orange/gateway/agents.sock');
    expect(gatewaySocketFor({ ORANGE_HOME: '/srv/orange' }, 'person')).toBe('/srv/orange/run/people.sock');
  });

  it('takes an agent by its secret; a person only without any part of an identity and without a terminal', () => {
    expect(gatewayCaller(agent, true)).toBe('agent');
    expect(gatewayCaller({}, false)).toBe('person');
    expect(gatewayCaller({}, true)).toBeNull();
    expect(gatewayCaller({ ORANGE_SPAWN_ID: 'sp1' }, false)).toBeNull();
  });

  it("serves a person's script its fleet commands with its whole environment but the shell's, and standard input for --context - and -c -", async () => {
    const env = { PATH: '/bin', HOME: '/home/x', GIT_AUTHOR_NAME: 'Ann', ANTHROPIC_API_KEY: 'k', ORANGE_HOME: '/h', PWD: '/somewhere', SHLVL: '2', TERM: 'xterm' };
    const request = await gatewayRequest(['task', 'create', 'fix/x', 'Fix it', '--context', '-'], env, dir, () => Promise.resolve('the context'), 'person');
    expect(request).toMatchObject({ argv: ['task', 'create', 'fix/x', 'Fix it', '--context', '-'], env: { PATH: '/bin', HOME: '/home/x', GIT_AUTHOR_NAME: 'Ann', ANTHROPIC_API_KEY: 'k', ORANGE_HOME: '/h' }, stdin: 'the context' });
    expect(Object.keys(request?.env ?? {})).not.toContain('PWD');
    expect(Object.keys(request?.env ?? {})).not.toContain('TERM');
    for (const form of [['-c', '-'], ['-c=-'], ['--context=-']]) {
      expect((await gatewayRequest(['task', 'create', 'fix/x', 'Fix it', ...form], env, dir, () => Promise.resolve('in'), 'person'))?.stdin, form.join(' ')).toBe('in');
    }
    expect((await gatewayRequest(['task', 'merge', 'abc', '--yes'], env, dir, noStdin, 'person'))?.stdin).toBe('');
    expect(await gatewayRequest(['task', 'update', '--status', 'working'], env, dir, noStdin, 'person')).toBeNull();
    expect(await gatewayRequest(['project', 'add', '.'], env, dir, noStdin, 'person')).toBeNull();
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
