import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, readFile, rename, rm } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { gatewaySocketFor, quickRun, writeFileAtomic, type OrangePaths } from '@orange/core';
import { perlClientScript, type PerlSocket } from './perl-client.js';
import { shellWord } from './shell-word.js';

/** Directory prepended to every agent's PATH; holds the `orange` shim. */
export function shimDir(paths: OrangePaths): string {
  return join(paths.runDir, 'bin');
}

/** What an agent's `orange` is: the gateway's Perl client (where a usable perl is found), or the Node CLI. */
export type AgentClient = 'perl' | 'node';

/** The shim's text: runs this node on the CLI entry, whatever node or orange the agent's PATH has. */
export function shimScript(nodePath: string, cliEntry: string): string {
  return `#!/bin/sh\nexec ${shellWord(nodePath)} ${shellWord(cliEntry)} "$@"\n`;
}

const perlSockets = new Map<string, Promise<{ perl: string; socket: PerlSocket } | null>>();

/**
 * The perl on this process's PATH and, as it packs them, the constants and address the client
 * connects to `socketPath` with (asked once per socket and process), or null when there is no perl
 * or it cannot (no Socket module, a path too long for a socket). Its absolute path becomes the
 * client's `#!` line: an agent's own PATH does not matter.
 */
export function perlSocket(socketPath: string, env: NodeJS.ProcessEnv = process.env): Promise<{ perl: string; socket: PerlSocket } | null> {
  let found = perlSockets.get(socketPath);
  if (found === undefined) {
    found = (async () => {
      for (const dir of (env.PATH ?? '').split(delimiter)) {
        if (!isAbsolute(dir)) continue;
        const perl = join(dir, 'perl');
        if (!(await access(perl, constants.X_OK).then(() => true, () => false))) continue;
        const asked = await quickRun(perl, perlSocketArgs(socketPath));
        const socket = asked.exitCode === 0 ? parsePerlSocket(socketPath, asked.stdout) : null;
        return socket ? { perl, socket } : null;
      }
      return null;
    })();
    perlSockets.set(socketPath, found);
  }
  return found;
}

// Dies (exit non-zero) for a path pack_sockaddr_un cannot hold.
const PACK = 'die if length($ARGV[0]) >= 104; print join(" ", Socket::AF_UNIX(), Socket::SOCK_STREAM(), unpack("H*", Socket::pack_sockaddr_un($ARGV[0])))';

/** Perl's arguments that print what the client needs to connect to `socketPath` on that perl's system (read with {@link parsePerlSocket}). */
export function perlSocketArgs(socketPath: string): string[] {
  return ['-MSocket', '-e', PACK, socketPath];
}

/** The socket as {@link perlSocketArgs}' output describes it, or null for output that does not. */
export function parsePerlSocket(socketPath: string, output: string): PerlSocket | null {
  const [family, type, address] = output.trim().split(' ');
  if (!family || !type || !address || !/^\d+$/.test(family) || !/^\d+$/.test(type) || !/^[0-9a-f]+$/.test(address)) return null;
  return { path: socketPath, family: Number(family), type: Number(type), address };
}

/**
 * Writes `$ORANGE_HOME/run/bin/orange` when its content changed: the Perl client where it can run
 * (`client` is `perl` and a usable perl is found), else a shell script that runs the Node CLI. The
 * file is completed and made executable under a temporary name and then renamed, so an agent never
 * runs a half-written or non-executable shim.
 */
export async function ensureOrangeShim(paths: OrangePaths, cliEntry: string, client: AgentClient = 'perl', nodePath: string = process.execPath): Promise<string> {
  const path = join(shimDir(paths), 'orange');
  const perl = client === 'perl' ? await perlSocket(gatewaySocketFor({ ORANGE_HOME: paths.home })) : null;
  const content = perl ? perlClientScript({ ...perl, cli: { node: nodePath, entry: cliEntry } }) : shimScript(nodePath, cliEntry);
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === content) return path;
  await writeExecutable(path, content);
  return path;
}

/**
 * Writes an executable file completed and made executable under a temporary name, then renamed:
 * whoever runs it never runs a half-written or non-executable file.
 */
export async function writeExecutable(path: string, content: string): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
  try {
    await writeFileAtomic(temp, content);
    await chmod(temp, 0o755);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
