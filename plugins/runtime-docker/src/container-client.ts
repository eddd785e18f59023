import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GATEWAY_SOCKETS, OrangeError, type OrangePaths } from '@orange/core';
import { parsePerlSocket, perlClientScript, perlSocketArgs, writeExecutable } from '@orange/plugin-tmux';
import { docker } from './engine.js';

/** Orange's home as a container sees it: only the agents' socket folder is there. */
export const CONTAINER_HOME = '/orange';
export const CONTAINER_SOCKET = [CONTAINER_HOME, ...GATEWAY_SOCKETS.agent].join('/');
export const CONTAINER_GATEWAY_DIR = [CONTAINER_HOME, GATEWAY_SOCKETS.agent[0]].join('/');

const clients = new Map<string, Promise<string>>();

/**
 * The `orange` a container's agent runs: the gateway's Perl client for that image's perl (its path,
 * and the socket's address as that system packs it), with no CLI behind it — what the gateway does
 * not answer is refused in one line. Written once per image under `$ORANGE_HOME/run/docker/`; the
 * image must exist (it is never pulled) and have perl, else E_RUNTIME says which.
 */
export async function containerClient(cli: string, image: string, paths: OrangePaths): Promise<string> {
  const inspected = await docker(cli, ['image', 'inspect', '--format', '{{.Id}}', image], `image ${image}`);
  const id = inspected.stdout.trim().replace(/^sha256:/, '').slice(0, 32);
  if (!/^[0-9a-f]+$/.test(id)) throw new OrangeError('E_RUNTIME', `docker: image ${image} has an id Orange cannot read: ${inspected.stdout.trim().slice(0, 80)}`);
  let client = clients.get(id);
  if (client === undefined) {
    client = writeClient(cli, image, id, paths);
    clients.set(id, client);
    client.catch(() => clients.delete(id));
  }
  return client;
}

async function writeClient(cli: string, image: string, id: string, paths: OrangePaths): Promise<string> {
  const path = join(paths.runDir, 'docker', id, 'orange');
  if ((await readFile(path, 'utf8').catch(() => null)) !== null) return path;
  const asked = await docker(
    cli,
    ['run', '--rm', '--pull', 'never', '--network', 'none', '--entrypoint', 'perl', image, '-e', 'print "$^X\\n";', ...perlSocketArgs(CONTAINER_SOCKET)],
    `image ${image} cannot run the orange client (it needs perl, with its Socket module, on PATH)`,
  );
  const [perl, socketLine = ''] = asked.stdout.split('\n');
  const socket = parsePerlSocket(CONTAINER_SOCKET, socketLine);
  if (!perl?.startsWith('/') || socket === null) throw new OrangeError('E_RUNTIME', `docker: image ${image}'s perl did not say where it is and how it connects (got ${JSON.stringify(asked.stdout.slice(0, 120))})`);
  await mkdir(join(paths.runDir, 'docker', id), { recursive: true, mode: 0o700 });
  await writeExecutable(path, perlClientScript({ perl, socket, cli: null }));
  return path;
}
