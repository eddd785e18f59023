import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { TmuxServer } from './tmux-server.js';
import { tmuxSocketFile } from './tmux-socket.js';
import { waitFor } from './wait-for.js';
import { processAlive } from './signal-process.js';

let server: TmuxServer | undefined;
afterEach(async () => {
  await server?.kill();
  server = undefined;
});

describe('TmuxServer', () => {
  it('runs a server of its own; kill ends its panes and the server and removes its socket file', async () => {
    server = TmuxServer.fresh('test-support', { ...process.env, TMUX: '/tmp/someone-elses,1,0' });
    expect(server.socket).toMatch(new RegExp(`^orange-test-support-${process.pid}-[0-9a-f]{6}$`));
    expect(server.env.TMUX).toBeUndefined();
    expect(await server.windows()).toEqual([]);
    await server.out('new-session', '-d', '-s', 'work', '-n', 'agent', 'sleep 60');
    expect(await server.windows()).toEqual(['work:agent']);
    expect(await server.out('display-message', '-p', '-t', 'work', '#{session_name}')).toBe('work');
    const pid = Number(await server.out('list-panes', '-a', '-F', '#{pane_pid}'));
    await server.killPanes();
    await waitFor(`pane process ${pid} to end`, () => !processAlive(pid));
    await server.kill();
    expect(existsSync(tmuxSocketFile(server.socket))).toBe(false);
    expect((await server.run('list-sessions')).code).not.toBe(0);
    await expect(server.out('list-sessions')).rejects.toThrow(/^tmux list-sessions failed: /);
  });

  it("kill also removes the start-up lock tmux can leave beside the socket (a client cut short while starting the server)", async () => {
    server = TmuxServer.fresh('test-support');
    await server.out('new-session', '-d', '-s', 'work', 'sleep 60');
    const lock = `${tmuxSocketFile(server.socket)}.lock`;
    await writeFile(lock, '');
    await server.kill();
    expect(existsSync(lock), lock).toBe(false);
  });
});
