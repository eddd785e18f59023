import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A new empty folder `orange-<name>-XXXXXX` under the temp dir, by its real path: what the CLI and
 * /proc print of a folder is its real path, and a TMPDIR may be a link. A test's ORANGE_HOME, its
 * repositories and its HOME go in it; the test removes it.
 */
export async function tempDir(name: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), `orange-${name}-`)));
}
