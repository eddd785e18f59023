import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { relative, isAbsolute } from 'node:path';
import { OrangeError } from '../errors/index.js';

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
  /** A symlink is followed only when its target lies inside this directory; null: never (a file someone else wrote in a folder of theirs). */
  readonly within: string | null;
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
 * directories and symlinks leading out of `within` (any symlink, when it is null) are refused
 * (E_UNREADABLE) without being opened for reading. Returns null when the file does not exist. The
 * caller closes `handle`.
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
    if (options.within === null) throw unreadable(options.what, 'it is a symlink');
    const within = options.within;
    const resolved = await realpath(path).catch(() => null);
    target = linkTarget(resolved, resolved === null ? '' : await realpath(within).catch(() => within), options);
    link = await lstat(target);
  }
  checkRegular(link, options);
  let handle: FileHandle;
  try {
    handle = await open(target, OPEN_FLAGS);
  } catch (error) {
    return afterFailedOpen(error, options);
  }
  try {
    const stat = await handle.stat();
    checkRegular(stat, options);
    const text = await readAll(handle, options.maxBytes, options.what);
    return { handle, text, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * `openRegularFile` without the promises, its checks alike, for small files read many at a time
 * (a listing rebuilds its index from 10,000 state files: one thread-pool round trip per call would
 * cost it seconds). Returns the text and its identity, null when the file does not exist.
 */
export function readRegularFileSync(path: string, options: RegularFileOptions): { text: string; ino: number; size: number; mtimeMs: number } | null {
  let target = path;
  let link = lstatSync(path, { throwIfNoEntry: false });
  if (link === undefined) return null;
  if (link.isSymbolicLink()) {
    if (options.within === null) throw unreadable(options.what, 'it is a symlink');
    const resolved = realpathSyncOrNull(path);
    target = linkTarget(resolved, realpathSyncOrNull(options.within) ?? options.within, options);
    link = lstatSync(target);
  }
  checkRegular(link, options);
  let fd: number;
  try {
    fd = openSync(target, OPEN_FLAGS);
  } catch (error) {
    return afterFailedOpen(error, options);
  }
  try {
    const stat = fstatSync(fd);
    checkRegular(stat, options);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(Math.max(stat.size + 1, 4096), 64 * 1024, options.maxBytes + 1 - total));
      const bytesRead = readSync(fd, buffer, 0, buffer.length, total);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > options.maxBytes) throw tooLarge(options);
      // A regular file reads short only at its end: no second call to learn that.
      if (bytesRead < buffer.length) break;
    }
    return { text: Buffer.concat(chunks, total).toString('utf8'), ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** Where a symlink leads, if that is inside `within` (both resolved); refused otherwise. */
function linkTarget(resolved: string | null, within: string, options: RegularFileOptions): string {
  if (resolved === null) throw unreadable(options.what, 'it is a symlink that leads nowhere');
  const inside = relative(within, resolved);
  if (inside.startsWith('..') || isAbsolute(inside)) throw unreadable(options.what, 'it is a symlink that leads outside its task folder');
  return resolved;
}

function checkRegular(stat: Stats, options: RegularFileOptions): void {
  if (!stat.isFile()) throw unreadable(options.what, `it is ${kindOf(stat)}`);
  if (stat.size > options.maxBytes) throw tooLarge(options);
}

function tooLarge(options: Pick<RegularFileOptions, 'maxBytes' | 'what'>): OrangeError {
  return unreadable(options.what, `it is larger than ${Math.round(options.maxBytes / 1024 / 1024)} MB`);
}

/** A failed open: null when the file went away meanwhile, a link swapped in meanwhile refused, anything else rethrown. */
function afterFailedOpen(error: unknown, options: RegularFileOptions): null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return null;
  if (code === 'ELOOP') throw unreadable(options.what, 'it became a symlink while being opened');
  throw error;
}

function realpathSyncOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
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
    if (total > maxBytes) throw tooLarge({ maxBytes, what });
  }
  return Buffer.concat(chunks, total).toString('utf8');
}
