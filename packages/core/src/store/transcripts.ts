import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentRole } from '../task/index.js';
import type { OrangePaths } from './paths.js';

/** Bytes of one transcript file before it is rotated to `<file>.1` (one older part is kept). */
export const TRANSCRIPT_ROTATE_BYTES = 4 * 1024 * 1024;
/** Transcripts kept per task and role; older spawns' files are removed when an agent starts. */
export const TRANSCRIPTS_KEPT = 10;

/** One agent spawn's terminal output, as kept under `tasks/<project>/<id>/logs/`. */
export interface Transcript {
  readonly role: AgentRole;
  readonly spawn: string;
  /** The current part (absent when only the rotated part is left). */
  readonly file: string;
  /** The older, rotated part (`<file>.1`), when the output outgrew the cap. */
  readonly rotated: string | null;
  /** Bytes of both parts. */
  readonly bytes: number;
  /** Last write, ISO. */
  readonly updated_at: string;
}

const NAME = /^(worker|reviewer)-([0-9A-Za-z]+)\.log(\.1)?$/;

/** A task's transcripts, oldest first (by last write). A task with none gives an empty list. */
export async function listTranscripts(paths: OrangePaths, project: string, id: string): Promise<Transcript[]> {
  const dir = paths.taskLogsDir(project, id);
  const names = await readdir(dir).catch(() => [] as string[]);
  const found = new Map<string, { role: AgentRole; spawn: string; bytes: number; mtime: number; current: boolean; rotated: boolean }>();
  for (const name of names) {
    const match = NAME.exec(name);
    if (!match) continue;
    const info = await lstat(join(dir, name)).catch(() => null);
    // Only regular files: a link planted in the logs directory is not followed by `task output`.
    if (!info?.isFile()) continue;
    const [, role, spawn, older] = match as unknown as [string, AgentRole, string, string | undefined];
    const key = `${role}-${spawn}`;
    const entry = found.get(key) ?? { role, spawn, bytes: 0, mtime: 0, current: false, rotated: false };
    entry.bytes += info.size;
    entry.mtime = Math.max(entry.mtime, info.mtimeMs);
    if (older) entry.rotated = true;
    else entry.current = true;
    found.set(key, entry);
  }
  return [...found.values()]
    .sort((a, b) => a.mtime - b.mtime)
    .map((e) => {
      const file = paths.transcriptFile(project, id, e.role, e.spawn);
      return { role: e.role, spawn: e.spawn, file, rotated: e.rotated ? `${file}.1` : null, bytes: e.bytes, updated_at: new Date(e.mtime).toISOString() };
    });
}

/** Removes the oldest transcripts of `role` beyond `keep` (so a task respawned all day stays bounded). */
export async function pruneTranscripts(paths: OrangePaths, project: string, id: string, role: AgentRole, keep: number = TRANSCRIPTS_KEPT): Promise<void> {
  const mine = (await listTranscripts(paths, project, id)).filter((t) => t.role === role);
  for (const old of mine.slice(0, Math.max(0, mine.length - keep))) {
    await rm(old.file, { force: true });
    if (old.rotated) await rm(old.rotated, { force: true });
  }
}
