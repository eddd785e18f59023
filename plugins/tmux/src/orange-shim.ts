import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic, type OrangePaths } from '@orange/core';
import { shellWord } from './shell-word.js';

/** Directory prepended to every agent's PATH; holds the `orange` shim. */
export function shimDir(paths: OrangePaths): string {
  return join(paths.runDir, 'bin');
}

/** The shim's text: runs this node on the CLI entry, whatever node or orange the agent's PATH has. */
export function shimScript(nodePath: string, cliEntry: string): string {
  return `#!/bin/sh\nexec ${shellWord(nodePath)} ${shellWord(cliEntry)} "$@"\n`;
}

/**
 * Writes `$ORANGE_HOME/run/bin/orange` when its content changed. The file is completed and made
 * executable under a temporary name and then renamed, so an agent never runs a half-written or
 * non-executable shim.
 */
export async function ensureOrangeShim(paths: OrangePaths, cliEntry: string, nodePath: string = process.execPath): Promise<string> {
  const path = join(shimDir(paths), 'orange');
  const content = shimScript(nodePath, cliEntry);
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === content) return path;
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
  try {
    await writeFileAtomic(temp, content);
    await chmod(temp, 0o755);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return path;
}
