import { constants, watch, type FSWatcher } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { onSignals } from '@orange/core';

/** Where a transcript is read from and what to do with what is read. */
export interface TranscriptReader {
  readonly file: string;
  /** The rotated part (`<file>.1`), read first. */
  readonly rotated: string;
  readonly write: (chunk: Buffer) => void;
}

export interface FollowOptions {
  /** Directories whose changes wake the reader (the logs directory, the task's directory). */
  readonly watch: readonly string[];
  /** False once the agent is gone: the reader reads what is left and returns. */
  readonly running: () => Promise<boolean>;
  /** Backstop wake-up, for changes a watcher misses (network file systems, a full inotify table). */
  readonly pollMs?: number;
}

/** Reads a transcript to its end, then (with `follow`) keeps reading as the agent writes, until it is gone. */
export async function readTranscript(reader: TranscriptReader, follow: FollowOptions | null): Promise<void> {
  let position = await readWhole(reader);
  if (follow === null) return;
  let wake: () => void = () => undefined;
  const watchers: FSWatcher[] = [];
  for (const dir of follow.watch) {
    try {
      watchers.push(watch(dir, () => wake()));
    } catch {
      // A directory that does not exist yet: the backstop poll covers it.
    }
  }
  let stopped = false;
  const stop = () => {
    stopped = true;
    wake();
  };
  const offSignals = onSignals(['SIGINT', 'SIGTERM'], stop);
  try {
    for (;;) {
      position = await readOn(reader, position);
      if (stopped) return;
      if (!(await follow.running())) {
        await readOn(reader, position);
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, follow.pollMs ?? 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    for (const w of watchers) w.close();
    offSignals();
  }
}

/** Where reading stopped: which file (by inode) and how far. */
interface Position {
  readonly ino: number | null;
  readonly offset: number;
}

async function readWhole(reader: TranscriptReader): Promise<Position> {
  await copyFrom(reader.rotated, 0, reader.write);
  return readOn(reader, { ino: null, offset: 0 });
}

/** Reads what was added since `position`; after a rotation, the rest of the old part (now `.1`) first. */
async function readOn(reader: TranscriptReader, position: Position): Promise<Position> {
  const now = await lstat(reader.file).catch(() => null);
  if (now === null || !now.isFile()) return position;
  let offset = position.offset;
  if (position.ino !== null && now.ino !== position.ino) {
    const older = await lstat(reader.rotated).catch(() => null);
    if (older?.ino === position.ino) await copyFrom(reader.rotated, offset, reader.write);
    offset = 0;
  }
  const end = await copyFrom(reader.file, offset, reader.write);
  return { ino: now.ino, offset: end };
}

/** Copies `file` from `offset` to its current end; returns the new offset (unchanged when the file is missing). */
async function copyFrom(file: string, offset: number, write: (chunk: Buffer) => void): Promise<number> {
  // No links followed, and no waiting on a FIFO planted in the logs directory: regular files only.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return offset;
  try {
    if (!(await handle.stat()).isFile()) return offset;
    const buffer = Buffer.alloc(64 * 1024);
    let at = offset;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) return at;
      write(Buffer.from(buffer.subarray(0, bytesRead)));
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
}
