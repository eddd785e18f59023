import { constants } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { relative, isAbsolute } from 'node:path';
import { OrangeError } from '../errors.js';

/** What was read from a regular file, with the handle still open on the inode that was read. */
export interface OpenedFile {
  readonly handle: FileHandle;
  readonly text: string;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface RegularFileOptions {
  /** Larger files are refused unread (a TASK.md linked to /dev/zero must not eat memory). */
  readonly maxBytes: number;
  /** A symlink is followed only when its target lies inside this directory. */
  readonly within: string;
  /** Names the file in messages, e.g. `task X: TASK.md`. */
  readonly what: string;
}

// O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the checked path is the opened one.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

function unreadable(what: string, why: string): OrangeError {
  return new OrangeError('E_UNREADABLE', `${what} is unreadable: ${why}`);
}

function kindOf(stat: { isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isDirectory(): boolean; isSocket(): boolean }): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens and reads a file only if it is a regular file no larger than `maxBytes`; FIFOs, devices,
 * directories and symlinks leading out of `within` are refused (E_UNREADABLE) without being opened
 * for reading. Returns null when the file does not exist. The caller closes `handle`.
 */
export async function openRegularFile(path: string, options: RegularFileOptions): Promise<OpenedFile | null> {
  let target = path;
  let link;
  try {
    link = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (link.isSymbolicLink()) {
    const resolved = await realpath(path).catch(() => null);
    const inside = resolved === null ? null : relative(await realpath(options.within).catch(() => options.within), resolved);
    if (resolved === null || inside === null || inside.startsWith('..') || isAbsolute(inside)) {
      throw unreadable(options.what, 'it is a symlink that leads outside its task folder');
    }
    target = resolved;
    link = await lstat(target);
  }
  if (!link.isFile()) throw unreadable(options.what, `it is ${kindOf(link)}`);
  if (link.size > options.maxBytes) throw unreadable(options.what, `it is larger than ${Math.round(options.maxBytes / 1024 / 1024)} MB`);
  let handle: FileHandle;
  try {
    handle = await open(target, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw unreadable(options.what, 'it became a symlink while being opened');
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw unreadable(options.what, `it is ${kindOf(stat)}`);
    const text = await readAll(handle, options.maxBytes, options.what);
    return { handle, text, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads the whole file through `handle` from offset 0, refusing more than `maxBytes`. */
export async function readAll(handle: FileHandle, maxBytes: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw unreadable(what, `it is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}
