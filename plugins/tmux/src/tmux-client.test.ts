import { mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmuxServer } from '@orange/test-support';
import { describe, expect, it } from 'vitest';
import { TmuxClient, typedText } from './tmux-client.js';
import { escapeTmuxArgument, escapeTmuxFormat } from './tmux-escape.js';

describe('escapeTmuxArgument', () => {
  it('escapes a trailing ; so tmux does not read it as a command separator', () => {
    expect(escapeTmuxArgument('rm -rf /;')).toBe('rm -rf /\\;');
    expect(escapeTmuxArgument('a\\;')).toBe('a\\\\;');
  });

  it('leaves any other argument unchanged', () => {
    for (const arg of ['', ';x', 'a ; b', '#{session_name}', '-t']) expect(escapeTmuxArgument(arg)).toBe(arg);
  });
});

describe('escapeTmuxFormat', () => {
  it('doubles # so a start directory is not expanded as a format', () => {
    expect(escapeTmuxFormat('/tmp/#{host}/x#')).toBe('/tmp/##{host}/x##');
  });
});

describe('TmuxClient.argv', () => {
  it('selects the server with -L only when a socket name is set', () => {
    expect(new TmuxClient('tmux', 'orange').argv(['list-windows', '-a'])).toEqual(['-L', 'orange', 'list-windows', '-a']);
    expect(new TmuxClient('tmux', undefined).argv(['list-windows'])).toEqual(['list-windows']);
  });
});

describe('the tmux server a client starts', () => {
  it("works from / and carries no agent's identity, whoever starts it (an agent's call from its worktree)", async () => {
    const server = TmuxServer.fresh('client-test');
    const client = new TmuxClient('tmux', server.socket);
    const saved = { ...process.env };
    // An agent's own `orange` call: its task's identity in the environment.
    Object.assign(process.env, { ORANGE_TASK_ID: 'AgentTask000000000000', ORANGE_SPAWN_ID: 'spawn00001', ORANGE_ROLE: 'worker' });
    try {
      expect((await client.attempt(['new-session', '-d', '-s', 'probe', 'sleep', '60'])).ok).toBe(true);
    } finally {
      for (const key of ['ORANGE_TASK_ID', 'ORANGE_SPAWN_ID', 'ORANGE_ROLE']) if (saved[key] === undefined) delete process.env[key];
    }
    try {
      const pid = (await client.run(['display-message', '-p', '#{pid}'])).trim();
      expect(await readlink(`/proc/${pid}/cwd`)).toBe('/');
      const environ = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
      expect(environ.filter((entry) => /^ORANGE_(TASK_ID|SPAWN_ID|ROLE)=/.test(entry))).toEqual([]);
    } finally {
      await server.kill();
    }
  });
});

describe('typedText', () => {
  it('drops every control character (Ctrl-C, ESC, BEL, DEL, C1) and turns line breaks and tabs into spaces', () => {
    expect(typedText('lint\u0003\u0003 failed\u001b[2J\u0007\u007f\u009b')).toBe('lint failed[2J');
    expect(typedText('one\ntwo\r\nthree\tfour')).toBe('one two  three four');
    expect(typedText('plain text, ünïcode — kept')).toBe('plain text, ünïcode — kept');
  });
});

describe('TmuxClient.listWindows', () => {
  it('reads a server that is going away (its last session just ended: "no current target") as no windows', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-tmux-stand-in-'));
    try {
      // A stand-in for the moment between the last session's end and the server's exit (tmux 3.3a).
      const bin = join(dir, 'tmux');
      await writeFile(bin, '#!/bin/sh\necho "no current target" >&2\nexit 1\n', { mode: 0o755 });
      expect(await new TmuxClient(bin, undefined).listWindows()).toEqual([]);
      await writeFile(bin, '#!/bin/sh\necho "unknown option -- Q" >&2\nexit 1\n', { mode: 0o755 });
      await expect(new TmuxClient(bin, undefined).listWindows()).rejects.toThrow('tmux list-windows failed: unknown option -- Q');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
