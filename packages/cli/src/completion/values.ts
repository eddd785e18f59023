import { OrangePaths, ProjectStore, TaskStore } from '@orange/core';
import { clip } from '../output/render.js';

/** What `orange completion --list` prints. */
export type ValueList = 'tasks' | 'projects';

export interface ValueListOptions {
  /** Only this project's tasks. */
  readonly project?: string;
  /** Each task id followed by a tab, its status and summary (for zsh and fish, which show it). */
  readonly describe?: boolean;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The lines a completion script offers for a task id or a project name, read from the store
 * alone: no config, no plugins, no Orange instance (it runs on every Tab). Tasks come from the
 * listing index, as `orange task list` reads them, newest first. Never throws: a completion that
 * cannot be read offers nothing.
 */
export async function valueLines(list: ValueList, options: ValueListOptions = {}): Promise<string[]> {
  try {
    const paths = OrangePaths.fromEnv(options.env);
    if (list === 'projects') return (await new ProjectStore(paths).list()).map((p) => p.name);
    const { tasks } = await new TaskStore(paths).list(options.project || undefined);
    const metas = tasks.map((t) => t.meta).sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
    return metas.map((m) => (options.describe ? `${m.id}\t${clip(`${m.status}: ${m.summary}`, 70)}` : m.id));
  } catch {
    return [];
  }
}
