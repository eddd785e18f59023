import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { Git, GitResult } from './git.js';
import { ProjectRepo } from './project-repo.js';

/** A git that records its calls and holds each fetch until the test lets it finish. */
function recordingGit() {
  const calls: string[] = [];
  const held: Array<() => void> = [];
  const git = {
    async attempt(_dir: string, args: readonly string[]): Promise<GitResult> {
      calls.push(args.join(' '));
      if (args[0] === 'fetch') await new Promise<void>((resolve) => held.push(resolve));
      return { ok: true, stdout: '', stderr: '' };
    },
  } as unknown as Git;
  return { git, calls, fetches: () => calls.filter((c) => c.startsWith('fetch')).length, release: () => held.splice(0).forEach((r) => r()) };
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function repoWith(git: Git): Promise<ProjectRepo> {
  dir = await mkdtemp(join(tmpdir(), 'orange-repo-'));
  const project = { name: 'demo', path: dir, default_branch: 'main', pool_size: 2 };
  return new ProjectRepo(project, git, 'origin', new Logger(join(dir, 'log')));
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ProjectRepo.fetch', () => {
  it('gives every caller a fetch started after it asked; callers asking during one share the next', async () => {
    const fake = recordingGit();
    const repo = await repoWith(fake.git);
    const first = repo.fetch();
    await tick();
    expect(fake.fetches()).toBe(1);
    // Five callers while the first fetch runs: none may be served by it (it began before they asked).
    let laterDone = 0;
    const later = Array.from({ length: 5 }, () => repo.fetch().then(() => laterDone++));
    await tick();
    expect(fake.fetches()).toBe(1);
    fake.release();
    await first;
    await tick();
    expect(laterDone).toBe(0);
    expect(fake.fetches()).toBe(2);
    fake.release();
    await Promise.all(later);
    expect(fake.fetches()).toBe(2);
    // Once nothing runs, the next caller starts a fetch of its own.
    const again = repo.fetch();
    await tick();
    expect(fake.fetches()).toBe(3);
    fake.release();
    await again;
  });

  it('asks git whether the remote exists once, not at every fetch', async () => {
    const fake = recordingGit();
    const repo = await repoWith(fake.git);
    for (let i = 0; i < 3; i++) {
      const fetched = repo.fetch();
      await tick();
      fake.release();
      await fetched;
    }
    expect(fake.calls.filter((c) => c.startsWith('remote get-url'))).toHaveLength(1);
    expect(fake.fetches()).toBe(3);
  });
});
