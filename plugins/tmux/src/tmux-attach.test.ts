import { TmuxServer, waitFor } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { attachInfo, switchAndWait } from './tmux-attach.js';
import { TmuxClient } from './tmux-client.js';

const servers: TmuxServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.kill();
});

/** A fresh tmux server (its own socket) with a detached session `name`. */
async function server(session: string, ...command: string[]): Promise<{ socket: string; client: TmuxClient; path: string }> {
  const server = TmuxServer.fresh('attach');
  servers.push(server);
  const socket = server.socket;
  const client = new TmuxClient('tmux', socket);
  await client.run(['new-session', '-d', '-s', session, '-x', '100', '-y', '30', ...command]);
  const path = (await client.run(['display-message', '-p', '-t', session, '#{socket_path}'])).trim();
  return { socket, client, path };
}

const outside = (): NodeJS.ProcessEnv => {
  const { TMUX: _t, TMUX_PANE: _p, ...env } = process.env;
  return env;
};

/** Polls `check` every 20 ms until it holds (5 s at most). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  await waitFor(what, check, { timeoutMs: 5_000, everyMs: 20 });
}

describe('attachInfo', () => {
  it('outside tmux: a client takes the terminal, and the prefix then d detaches', async () => {
    const agents = await server('agents', 'sleep', '60');
    expect(await attachInfo(agents.client, outside())).toEqual({ mode: 'attach', back: 'C-b d', prefix: 'C-b' });
  });

  it("inside a client of the agents' own server: switch-client, and the prefix then L comes back", async () => {
    const agents = await server('agents', 'sleep', '60');
    const env = { ...outside(), TMUX: `${agents.path},1,0` };
    expect(await attachInfo(agents.client, env)).toEqual({ mode: 'switch', back: 'C-b L', prefix: 'C-b' });
    // Without -L, tmux itself uses the server of $TMUX.
    expect(await attachInfo(new TmuxClient('tmux', undefined), env)).toMatchObject({ mode: 'switch' });
  });

  it('inside another server: nested, the prefix pressed twice when both use the same one, once when they differ', async () => {
    const agents = await server('agents', 'sleep', '60');
    const outer = await server('mine', 'sleep', '60');
    const env = { ...outside(), TMUX: `${outer.path},1,0` };
    expect(await attachInfo(agents.client, env)).toEqual({ mode: 'nested', back: 'C-b C-b d', prefix: 'C-b' });
    await outer.client.run(['set-option', '-g', 'prefix', 'C-a']);
    expect(await attachInfo(agents.client, env)).toEqual({ mode: 'nested', back: 'C-b d', prefix: 'C-b' });
    // The agents' own prefix, changed: `prefix` follows it (the help's "<prefix> d detaches").
    await agents.client.run(['set-option', '-g', 'prefix', 'C-q']);
    expect(await attachInfo(agents.client, env)).toEqual({ mode: 'nested', back: 'C-q d', prefix: 'C-q' });
  });
});

describe('switchAndWait', () => {
  it('switches the client showing this pane to the agent, and returns only once it is back on its own session', async () => {
    const agents = await server('dash', 'sleep', '60');
    await agents.client.run(['new-session', '-d', '-s', 'agent', 'sleep', '60']);
    // A real client of the agents' server, running in a pane of another server (a terminal).
    const terminal = await server('terminal', 'sh');
    await terminal.client.run(['send-keys', '-t', 'terminal', `TMUX= tmux -L ${agents.socket} attach -t dash`, 'Enter']);
    const sessionOfClient = async () => (await agents.client.attempt(['list-clients', '-F', '#{session_name}'])).stdout.trim();
    await until('the client to attach', async () => (await sessionOfClient()) === 'dash');

    let settled = false;
    const waiting = switchAndWait(agents.client, '=agent', 'C-b L').then((v) => ((settled = true), v));
    await until('the client to switch to the agent', async () => (await sessionOfClient()) === 'agent');
    expect(await terminal.client.run(['capture-pane', '-p', '-t', 'terminal'])).toContain('orange: C-b L (switch-client -l) comes back');
    // Several looks at the client later, it is still waiting.
    const calls = agents.client.calls;
    await until('two more looks at the client', async () => agents.client.calls >= calls + 2);
    expect(settled).toBe(false);

    await terminal.client.run(['send-keys', '-t', 'terminal', 'C-b', 'L']);
    expect(await waiting).toBe(true);
    expect(await sessionOfClient()).toBe('dash');
  });

  it('returns when the client detaches instead, and false when no client shows this pane', async () => {
    const agents = await server('dash', 'sleep', '60');
    await agents.client.run(['new-session', '-d', '-s', 'agent', 'sleep', '60']);
    expect(await switchAndWait(agents.client, '=agent', 'C-b L')).toBe(false);
    const terminal = await server('terminal', 'sh');
    await terminal.client.run(['send-keys', '-t', 'terminal', `TMUX= tmux -L ${agents.socket} attach -t dash`, 'Enter']);
    await until('the client to attach', async () => (await agents.client.attempt(['list-clients', '-F', '#{session_name}'])).stdout.trim() === 'dash');
    const waiting = switchAndWait(agents.client, '=agent', 'C-b L');
    await until('the client to switch', async () => (await agents.client.attempt(['list-clients', '-F', '#{session_name}'])).stdout.trim() === 'agent');
    await terminal.client.run(['send-keys', '-t', 'terminal', 'C-b', 'd']);
    expect(await waiting).toBe(true);
  });
});
