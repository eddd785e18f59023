import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatewayRequest, OrangePaths, type GatewayRequest } from '@orange/core';
import { ensureOrangeShim, perlSocket } from './orange-shim.js';
import { perlClientScript } from './perl-client.js';

// The Perl client is held to the Node client's decisions: each request it sends is compared with
// what `gatewayRequest` (the Node client's) makes of the same call, and what it hands to the CLI
// is seen by a stand-in CLI that prints its arguments and standard input.

let dir: string;
let home: string;
let client: string;
let server: Server | undefined;

const STAND_IN_CLI = `process.stdin.setEncoding('utf8');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => { process.stdout.write(JSON.stringify({ cli: process.argv.slice(2), stdin: input }), () => process.exit(9)); });
`;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-perl-client-'));
  home = join(dir, 'home');
  await mkdir(join(home, 'gateway'), { recursive: true });
  await writeFile(join(dir, 'cli.cjs'), STAND_IN_CLI);
  await mkdir(join(dir, 'bin'));
  client = join(dir, 'bin', 'orange');
  await writeClient({ node: process.execPath, entry: join(dir, 'cli.cjs') });
});

async function writeClient(cli: { node: string; entry: string } | null): Promise<void> {
  const found = await perlSocket(join(home, 'gateway', 'agents.sock'));
  if (found === null) throw new Error('no perl with its Socket module on PATH: the agent client needs one (Debian: apt-get install perl-base)');
  await writeFile(client, perlClientScript({ ...found, cli }));
  await chmod(client, 0o755);
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const agent = { ORANGE_AGENT_SECRET: 's3cret', ORANGE_TASK_ID: 'abc', ORANGE_PROJECT: 'app', ORANGE_SPAWN_ID: 'sp1' };

/** A gateway that records each request and answers it with `answer(request)` (undefined: hangs up). */
function gateway(answer: (request: GatewayRequest) => string | undefined): Promise<GatewayRequest[]> {
  const seen: GatewayRequest[] = [];
  server = createServer((socket) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end < 0) return;
      const request = JSON.parse(text.slice(0, end)) as GatewayRequest;
      seen.push(request);
      const reply = answer(request);
      if (reply === undefined) socket.destroy();
      else socket.end(reply);
    });
  });
  return new Promise((resolve) => server!.listen(join(home, 'gateway', 'agents.sock'), () => resolve(seen)));
}

function run(argv: string[], options: { env?: Record<string, string>; input?: string } = {}) {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ORANGE_HOME: home, ...agent, ...options.env };
  return execa(client, argv, { cwd: dir, env, extendEnv: false, input: options.input ?? '', reject: false, encoding: 'buffer', stripFinalNewline: false });
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

/** What the Node client sends for the same call (the pid aside: each client sends its own). */
async function nodeRequest(argv: string[], env: Record<string, string>, input = ''): Promise<Omit<GatewayRequest, 'pid'>> {
  const request = await gatewayRequest(argv, { ORANGE_HOME: home, ...agent, ...env }, dir, () => Promise.resolve(input), 'agent');
  if (request === null) throw new Error(`the Node client would not send ${argv.join(' ')}`);
  const { pid: _pid, ...rest } = request;
  return rest;
}

describe('the Perl agent client', () => {
  it("sends what the Node client sends (Orange's variables and the tmux pane only) and prints the reply as it came, with its exit code", async () => {
    const seen = await gateway(() => `${JSON.stringify({ stdout: 'moved: working → done\n', stderr: 'a warning\n', exit: 3 })}\n`);
    const env = { TMUX: '/tmp/tmux-0/default,1,0', TMUX_PANE: '%3', ORANGE_PROMPT: 'long', GIT_DIR: '/x', ORANGE_ROLE: 'worker' };
    const argv = ['task', 'update', '--status', 'working', '--summary', 'naïve "quoted" \\ tab\there\nnext line'];
    const subprocess = run(argv, { env });
    const result = await subprocess;
    expect(text(result.stdout)).toBe('moved: working → done\n');
    expect(text(result.stderr)).toBe('a warning\n');
    expect(result.exitCode).toBe(3);
    expect(seen).toHaveLength(1);
    const { pid, ...request } = seen[0]!;
    expect(pid).toBe(subprocess.pid);
    expect(request).toEqual(await nodeRequest(argv, env));
  });

  it('reads standard input for "-" and --file -, not for --text -, and reads a --file itself (sent as standard input)', async () => {
    const seen = await gateway(() => '{"stdout":"","stderr":"","exit":0}\n');
    await writeFile(join(dir, 'plan.md'), 'APPROACH: é 😀\nTOUCHING: x\n');
    const calls: [string[], string][] = [
      [['task', 'section', 'set', 'Plan', '-'], 'from stdin ✓\n'],
      [['task', 'section', 'set', 'Plan', '--file', '-'], 'from stdin\n'],
      [['task', 'section', 'set', 'Plan', '--file=-'], 'from stdin\n'],
      [['task', 'section', 'set', 'Plan', '--text', '-'], 'not read'],
      [['task', 'section', 'set', 'Plan', '--file', 'plan.md', '--json'], 'not read'],
      [['task', 'section', 'set', 'Plan', `--file=${join(dir, 'plan.md')}`], 'not read'],
    ];
    for (const [argv, input] of calls) {
      const result = await run(argv, { input });
      expect(result.exitCode, text(result.stderr)).toBe(0);
    }
    for (const [i, [argv, input]] of calls.entries()) {
      const { pid: _pid, ...request } = seen[i]!;
      expect(request, argv.join(' ')).toEqual(await nodeRequest(argv, {}, input));
    }
  });

  it('turns every escape of a reply back into the text the gateway sent (surrogate pairs, control characters, a lone surrogate)', async () => {
    const stdout = 'é ✓ 😀 \u0001 "q" \\ / \t\r\n\b\f';
    await gateway(() => `${JSON.stringify({ stdout, stderr: '\ud800', exit: 0 })}\n`);
    const result = await run(['task', 'show']);
    expect(text(result.stdout)).toBe(stdout);
    expect(text(result.stderr)).toBe('\ufffd');
    const escaped = await run(['task', 'show']);
    expect(text(escaped.stdout)).toBe(stdout);
  });

  it('reads escapes written as \\uXXXX too (not only as Node writes them)', async () => {
    await gateway(() => '{ "stdout" : "\\u00e9\\ud83d\\ude00\\u000a" , "stderr" : "" , "exit" : 0 , "extra" : [1, -2.5e3, true, false, null, {"a": []}] }\n');
    const result = await run(['task', 'show']);
    expect(text(result.stdout)).toBe('é😀\n');
  });

  it('hands the call to the CLI, arguments and standard input unchanged, when the gateway is not for it', async () => {
    const seen = await gateway(() => '{"stdout":"served","stderr":"","exit":0}\n');
    const cases: [string[], Record<string, string>][] = [
      [['task', 'update', '--status', 'working'], { ORANGE_AGENT_SECRET: '' }],
      [['task', 'update', '--help'], {}],
      [['task', 'update', '-h'], {}],
      [['task', 'merge', 'abc'], {}],
      [['task'], {}],
      [['task', 'section', 'set', 'Plan', '--file', 'missing.md'], {}],
      [['task', 'section', 'set', 'Plan', '--file', '.'], {}],
    ];
    for (const [argv, env] of cases) {
      const result = await run(argv, { env, input: 'kept input' });
      expect(result.exitCode, argv.join(' ')).toBe(9);
      expect(JSON.parse(text(result.stdout)), argv.join(' ')).toEqual({ cli: argv, stdin: 'kept input' });
    }
    expect(seen).toEqual([]);
  });

  it('finds its Orange home as the Node client does (relative to the caller, ~/orange by default), and leaves another home to the CLI', async () => {
    const seen = await gateway(() => '{"stdout":"served","stderr":"","exit":0}\n');
    expect(text((await run(['task', 'show'], { env: { ORANGE_HOME: 'home/' } })).stdout)).toBe('served');
    expect(text((await run(['task', 'show'], { env: { ORANGE_HOME: '  ' } })).stdout)).toContain('"cli"');
    await rename(home, join(dir, 'orange'));
    home = join(dir, 'orange');
    await writeClient({ node: process.execPath, entry: join(dir, 'cli.cjs') });
    expect(text((await run(['task', 'show'], { env: { ORANGE_HOME: '' } })).stdout)).toBe('served');
    expect(JSON.parse(text((await run(['task', 'show'], { env: { ORANGE_HOME: join(dir, 'elsewhere') } })).stdout))).toEqual({ cli: ['task', 'show'], stdin: '' });
    expect(seen).toHaveLength(2);
  });

  it('hands the call to the CLI when nothing listens (no socket, a stale one)', async () => {
    const none = await run(['task', 'update', '--status', 'working'], { input: 'x' });
    expect(JSON.parse(text(none.stdout))).toEqual({ cli: ['task', 'update', '--status', 'working'], stdin: 'x' });
    await writeFile(join(home, 'gateway', 'agents.sock'), '');
    const stale = await run(['task', 'show']);
    expect(JSON.parse(text(stale.stdout))).toEqual({ cli: ['task', 'show'], stdin: '' });
  });

  it('hands a referred call to the CLI with the standard input it already read', async () => {
    const seen = await gateway(() => '{"refer":"not this Orange\'s"}\n');
    const argv = ['task', 'section', 'set', 'Plan', '--file', '-'];
    const result = await run(argv, { input: 'the plan ✓\n' });
    expect(seen).toHaveLength(1);
    expect(JSON.parse(text(result.stdout))).toEqual({ cli: argv, stdin: 'the plan ✓\n' });
  });

  it('hands a request too large for the gateway to the CLI, with its standard input', async () => {
    const seen = await gateway(() => '{"stdout":"","stderr":"","exit":0}\n');
    const input = 'x'.repeat(4 * 1024 * 1024 + 10);
    const argv = ['task', 'section', 'set', 'Notes', '-'];
    const result = await run(argv, { input });
    const handed = JSON.parse(text(result.stdout)) as { cli: string[]; stdin: string };
    expect(handed.cli).toEqual(argv);
    expect(handed.stdin.length).toBe(input.length);
    expect(seen).toEqual([]);
  });

  it('says the call may or may not have been carried out when the gateway hangs up, answers nonsense or out of turn (exit 1)', async () => {
    const answers: [string | undefined, string][] = [
      [undefined, 'the connection closed'],
      ['not json\n', 'its answer was not readable'],
      ['{"accepted":true}\n', 'it answered out of turn'],
    ];
    for (const [answer, reason] of answers) {
      await gateway(() => answer);
      const result = await run(['task', 'update', '--status', 'working']);
      expect(result.exitCode).toBe(1);
      expect(text(result.stderr)).toBe(
        `orange: the Orange serving this call stopped answering (${reason}); the call may or may not have been carried out: check with orange task show\n`,
      );
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });

  it('says in one line that no Orange answers, where it has no CLI to hand a call to', async () => {
    await writeClient(null);
    const result = await run(['task', 'update', '--status', 'working']);
    expect(result.exitCode).toBe(1);
    expect(text(result.stderr)).toBe("orange: no Orange answers agents here (its gateway is not listening); ask the person running Orange\n");
  });
});

describe('the orange shim', () => {
  it('is the Perl client where a perl packs the socket, and the Node CLI with agentClient "node" or no perl', async () => {
    const paths = new OrangePaths(home);
    const shim = await readFile(await ensureOrangeShim(paths, '/opt/orange/bin/run.cjs', 'perl', '/opt/node'), 'utf8');
    expect(shim).toMatch(/^#!\/\S+\/perl\n/);
    expect(shim).toContain(`my $SOCKET = '${join(home, 'gateway', 'agents.sock')}';`);
    expect(shim).toContain("my @CLI = ('/opt/node', '/opt/orange/bin/run.cjs');");
    expect(await readFile(await ensureOrangeShim(paths, '/opt/orange/bin/run.cjs', 'node', '/opt/node'), 'utf8')).toBe("#!/bin/sh\nexec '/opt/node' '/opt/orange/bin/run.cjs' \"$@\"\n");
    expect(await perlSocket(join(dir, 'other.sock'), { PATH: join(dir, 'no-perl-here') })).toBeNull();
    expect(await perlSocket(join(dir, 'x'.repeat(120)))).toBeNull();
  });
});
