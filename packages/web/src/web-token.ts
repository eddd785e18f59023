import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The page's secret, kept in `$ORANGE_HOME/web/token` (mode 0600) so a page left open signs in
 * again after `orange web` restarts. `renew` makes a new one (every open page must then be opened
 * from the new URL). Two servers starting together get the same token: the file is linked into
 * place, never overwritten, unless renewed.
 */
export async function webToken(home: string, renewWanted = false): Promise<string> {
  const dir = join(home, 'web');
  const file = join(dir, 'token');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let renew = renewWanted;
  if (!renew) {
    const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (TOKEN.test(kept)) return kept;
    // A file left half written (or edited) is replaced, not trusted.
    renew = kept !== '';
  }
  const token = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  try {
    if (renew) await rm(file, { force: true });
    await link(temp, file).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(temp, { force: true });
  }
  await chmod(file, 0o600);
  const kept = (await readFile(file, 'utf8')).trim();
  if (!TOKEN.test(kept)) throw new Error(`${file} does not hold a token; remove it and start orange web again`);
  return kept;
}
