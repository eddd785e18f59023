import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/**
 * The file `bin` would run as: `bin` itself when it contains a slash, else the first executable
 * match on PATH; null when there is none. A PATH scan, not a spawn: `installed()` is asked often.
 */
export function findExecutable(bin: string, pathEnv: string = process.env.PATH ?? ''): string | null {
  if (bin.includes('/')) return isExecutableFile(resolve(bin)) ? resolve(bin) : null;
  for (const dir of pathEnv.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, bin);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
