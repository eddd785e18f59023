import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, realpath, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cannotRunHere, descriptorsOn } from '../../test/fixtures.js';
import { openRegularFile, readAll, readRegularFileSync, type RegularFileOptions } from './regular-file.js';

const MB = 1024 * 1024;
const LINUX = process.platform === 'linux';

let dir: string;
const servers: Server[] = [];
beforeEach(async () => {
  // Resolved: a link's target is compared with the folder's real path.
  dir = await realpath(await mkdtemp(join(tmpdir(), 'orange-regular-')));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Options naming the file `the file`, following links only inside `within`. */
const opts = (maxBytes: number, within: string | null = null): RegularFileOptions => ({ maxBytes, within, what: 'the file' });

/** The two readers, asked the same way: the text read (the handle closed again), null when there is no file. */
const readers: [string, (path: string, options: RegularFileOptions) => Promise<string | null>][] = [
  [
    'openRegularFile',
    async (path, options) => {
      const file = await openRegularFile(path, options);
      if (file === null) return null;
      await file.handle.close();
      return file.text;
    },
  ],
  ['readRegularFileSync', async (path, options) => readRegularFileSync(path, options)?.text ?? null],
];


describe.each(readers)('%s', (_name, read) => {
  it('reads a file of exactly maxBytes whole, across several chunks', async () => {
    const path = join(dir, 'TASK.md');
    const text = 'abcdefghij'.repeat(20 * 1024);
    await writeFile(path, text);
    expect(await read(path, opts(text.length))).toBe(text);
    // One byte short of a chunk's end, and a small file under a large limit.
    await writeFile(path, 'x'.repeat(64 * 1024 - 1));
    expect(await read(path, opts(MB))).toHaveLength(64 * 1024 - 1);
    await writeFile(path, 'small');
    expect(await read(path, opts(MB))).toBe('small');
  });

  it('reads a small file under a limit too large to allocate (it reads what is there, not the limit)', async () => {
    const path = join(dir, 'TASK.md');
    await writeFile(path, 'héllo\n');
    expect(await read(path, opts(Number.MAX_SAFE_INTEGER))).toBe('héllo\n');
  });

  it('refuses a file one byte over maxBytes, naming the limit in MB', async () => {
    const path = join(dir, 'TASK.md');
    await writeFile(path, Buffer.alloc(MB + 1, 0x61));
    await expect(read(path, opts(MB))).rejects.toMatchObject({ code: 'E_UNREADABLE', message: 'the file is unreadable: it is larger than 1 MB' });
  });

  it('refuses a file over maxBytes unread: its access time stays as it was', async () => {
    const path = join(dir, 'TASK.md');
    await writeFile(path, Buffer.alloc(64 * 1024, 0x61));
    // Access no later than the change: a read would move it (relatime), a refusal by size must not.
    const old = new Date('2001-01-01T00:00:00Z');
    await utimes(path, old, old);
    await expect(read(path, opts(1024))).rejects.toMatchObject({ code: 'E_UNREADABLE' });
    expect((await stat(path)).atimeMs).toBe(old.getTime());
  });

  it('returns null for a missing file', async () => {
    expect(await read(join(dir, 'absent.md'), opts(MB))).toBeNull();
  });

  it('rethrows a failed look-up that is not a missing file (a path through a file)', async () => {
    const path = join(dir, 'TASK.md');
    await writeFile(path, 'text');
    await expect(read(join(path, 'inner'), opts(MB))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('refuses a directory, a device and a socket, naming what each is', async () => {
    await expect(read(dir, opts(MB))).rejects.toMatchObject({ code: 'E_UNREADABLE', message: 'the file is unreadable: it is a directory' });
    await expect(read('/dev/null', opts(MB))).rejects.toMatchObject({ code: 'E_UNREADABLE', message: 'the file is unreadable: it is a device' });
    const socket = join(dir, 'sock');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    await expect(read(socket, opts(MB))).rejects.toMatchObject({ code: 'E_UNREADABLE', message: 'the file is unreadable: it is a socket' });
  });

  it('reads a plain file when no link may be followed, and refuses any link then', async () => {
    const path = join(dir, 'TASK.md');
    await writeFile(path, 'text');
    expect(await read(path, opts(MB, null))).toBe('text');
    const link = join(dir, 'link.md');
    await symlink(path, link);
    await expect(read(link, opts(MB, null))).rejects.toMatchObject({ code: 'E_UNREADABLE', message: 'the file is unreadable: it is a symlink' });
  });

  it('follows a link that leads inside its folder, also when the folder is named through a link', async () => {
    const inner = join(dir, 'task');
    await mkdir(join(inner, 'notes'), { recursive: true });
    await writeFile(join(inner, 'notes', 'real.md'), 'the real text');
    const link = join(inner, 'TASK.md');
    await symlink(join(inner, 'notes', 'real.md'), link);
    expect(await read(link, opts(MB, inner))).toBe('the real text');
    // The folder's own path has a link in it: both sides are compared resolved.
    const alias = join(dir, 'alias');
    await symlink(inner, alias);
    expect(await read(join(alias, 'TASK.md'), opts(MB, alias))).toBe('the real text');
  });

  it('refuses a link that leads outside its folder, a dangling link, and a link whose folder does not exist', async () => {
    const inner = join(dir, 'task');
    await mkdir(inner);
    await writeFile(join(dir, 'secret'), 'not yours');
    const outside = join(inner, 'TASK.md');
    await symlink(join(dir, 'secret'), outside);
    const refused = { code: 'E_UNREADABLE', message: 'the file is unreadable: it is a symlink that leads outside its task folder' };
    await expect(read(outside, opts(MB, inner))).rejects.toMatchObject(refused);
    const dangling = join(inner, 'dangling.md');
    await symlink(join(inner, 'gone.md'), dangling);
    await expect(read(dangling, opts(MB, inner))).rejects.toMatchObject({ code: 'E_UNREADABLE', message: 'the file is unreadable: it is a symlink that leads nowhere' });
    await expect(read(outside, opts(MB, join(dir, 'no-such-folder')))).rejects.toMatchObject(refused);
  });

  it.runIf(LINUX)('holds a file whose size the kernel does not report (/proc) to maxBytes', async () => {
    // /proc/self/status stats as an empty regular file, yet reads a kilobyte.
    await expect(read('/proc/self/status', opts(10))).rejects.toMatchObject({ code: 'E_UNREADABLE', message: expect.stringMatching(/^the file is unreadable: it is larger than/) });
    expect(await read('/proc/self/status', opts(MB))).toMatch(/^Name:/);
  });

  it.runIf(LINUX)('rethrows an open that fails for a reason other than a vanished file', async (context) => {
    if (!existsSync('/proc/sys/vm/drop_caches')) cannotRunHere(context, '/proc/sys/vm/drop_caches is missing: no write-only file to open');
    // Write-only to everyone, root included: the look-up passes, the open fails.
    await expect(read('/proc/sys/vm/drop_caches', opts(MB))).rejects.toMatchObject({ code: 'EACCES' });
  });
});

describe('readRegularFileSync', () => {
  it.runIf(LINUX)('leaves no descriptor open on the file it read', async () => {
    const path = join(dir, 'state.json');
    await writeFile(path, '{}');
    expect(readRegularFileSync(path, opts(MB))?.text).toBe('{}');
    expect(descriptorsOn(path)).toEqual([]);
  });
});

describe('readAll', () => {
  it('reads the whole file from its start, however far the handle has read', async () => {
    const path = join(dir, 'TASK.md');
    const text = 'x'.repeat(MB);
    await writeFile(path, text);
    const handle = await open(path, 'r');
    try {
      await handle.read(Buffer.alloc(10), 0, 10, null);
      expect(await readAll(handle, MB, 'TASK.md')).toBe(text);
      expect(await readAll(handle, Number.MAX_SAFE_INTEGER, 'TASK.md')).toBe(text);
    } finally {
      await handle.close();
    }
  });

  it('refuses more than maxBytes, naming the file and the limit', async () => {
    const path = join(dir, 'TASK.md');
    await writeFile(path, Buffer.alloc(MB + 1, 0x61));
    const handle = await open(path, 'r');
    try {
      await expect(readAll(handle, MB, 'task X: TASK.md')).rejects.toMatchObject({ code: 'E_UNREADABLE', message: 'task X: TASK.md is unreadable: it is larger than 1 MB' });
    } finally {
      await handle.close();
    }
  });
});
