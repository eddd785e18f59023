import { existsSync } from 'node:fs';
import { appendFile, lstat, mkdir, readFile, readlink, symlink, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { OrangeError, writeFileAtomic, type Logger, type Project } from '@orange/core';
import { gitFailure, type Git } from './git.js';

/** The name the task file is linked under in every worktree. */
export const TASK_LINK = 'TASK.md';

/** The lines around what Orange adds to a repository's exclude file (gitignore comments). */
export const EXCLUDE_BEGIN = "# added by Orange for its worktrees (orange project remove takes these lines out)";
export const EXCLUDE_END = '# end of the lines added by Orange';

async function readExclude(file: string): Promise<string> {
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
}

/** `text` without the blocks Orange added (markers included); a block whose end marker is missing runs to the end. */
export function withoutOrangeLines(text: string): string {
  const lines = text.split('\n');
  const endsWithNewline = lines.at(-1) === '';
  if (endsWithNewline) lines.pop();
  const kept: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (!inside && line === EXCLUDE_BEGIN) inside = true;
    else if (inside && line === EXCLUDE_END) inside = false;
    else if (!inside) kept.push(line);
  }
  return kept.length === 0 ? '' : `${kept.join('\n')}${endsWithNewline ? '\n' : ''}`;
}

/** Tries of `git worktree add` that another add in the same repository got in the way of. */
const ADD_ATTEMPTS = 5;

/** How long a repository's answer to "do you have the remote?" is trusted (a remote added by hand is seen after this). */
const REMOTE_CHECK_TTL_MS = 30_000;

/**
 * A registered project's repository as the pool sees it: where worktrees are based,
 * how they are created, put on a task's branch, and reset.
 */
export class ProjectRepo {
  private remoteKnown: { readonly value: boolean; readonly at: number } | undefined;
  private fetching: Promise<void> | undefined;
  private nextFetch: Promise<void> | undefined;
  /** The base found since the last fetch (a fetch may make `<remote>/<default>` appear or go). */
  private base: { readonly ref: string; readonly at: number } | undefined;
  /** The exclude file git uses (the repository's, shared by every worktree of it). */
  private excludeFile: string | undefined;

  constructor(
    readonly project: Project,
    private readonly git: Git,
    private readonly remote: string,
    private readonly log: Logger,
  ) {}

  get dir(): string {
    return this.project.path;
  }

  /** True when the repository has the configured remote (asked of git at most every 30 s). */
  async hasRemote(): Promise<boolean> {
    if (this.remoteKnown === undefined || Date.now() - this.remoteKnown.at > REMOTE_CHECK_TTL_MS) {
      this.remoteKnown = { value: (await this.git.attempt(this.dir, ['remote', 'get-url', this.remote])).ok, at: Date.now() };
    }
    return this.remoteKnown.value;
  }

  /**
   * Updates the remote-tracking branches; an unreachable remote is logged, not fatal (work can go
   * on offline). Every caller gets a fetch that started after it asked; callers that ask while one
   * runs share the next (a fleet's tasks starting together fetch twice, not once each).
   */
  fetch(): Promise<void> {
    if (!this.fetching) {
      this.fetching = this.fetchNow().finally(() => {
        this.fetching = undefined;
      });
      return this.fetching;
    }
    this.nextFetch ??= this.fetching.then(() => {
      this.nextFetch = undefined;
      return this.fetch();
    });
    return this.nextFetch;
  }

  private async fetchNow(): Promise<void> {
    if (!(await this.hasRemote())) return;
    const result = await this.git.attempt(this.dir, ['fetch', '--prune', this.remote]);
    this.base = undefined;
    if (!result.ok) this.log.warn('fetch failed; using the refs already fetched', { project: this.project.name, remote: this.remote, error: result.stderr.trim() });
  }

  /**
   * Where free worktrees sit: `<remote>/<default>`, or the local default branch when there is no
   * remote. Asked of git again after every fetch, and at most 30 s after the last time.
   */
  async baseRef(): Promise<string> {
    if (this.base && Date.now() - this.base.at <= REMOTE_CHECK_TTL_MS) return this.base.ref;
    const ref = await this.findBaseRef();
    this.base = { ref, at: Date.now() };
    return ref;
  }

  private async findBaseRef(): Promise<string> {
    const remoteRef = `${this.remote}/${this.project.default_branch}`;
    if ((await this.hasRemote()) && (await this.git.hasRef(this.dir, `refs/remotes/${remoteRef}`))) return remoteRef;
    if (!(await this.git.hasRef(this.dir, `refs/heads/${this.project.default_branch}`))) {
      throw new OrangeError(
        'E_WORKSPACE',
        `project ${this.project.name}: neither ${remoteRef} nor a local branch ${this.project.default_branch} exists in ${this.dir}`,
      );
    }
    this.log.info('no remote default branch; using the local default branch', { project: this.project.name, remote: this.remote, branch: this.project.default_branch });
    return this.project.default_branch;
  }

  /** Creates the worktree at `path`, detached at the base; an existing worktree of this repository is adopted. */
  async addWorktree(path: string): Promise<void> {
    if (existsSync(join(path, '.git'))) {
      const [mine, theirs] = await Promise.all([this.commonDir(this.dir), this.commonDir(path)]);
      if (mine === theirs) return;
      throw new OrangeError('E_WORKSPACE', `${path} exists but is not a worktree of ${this.dir}; move it away and retry`);
    }
    await mkdir(dirname(path), { recursive: true });
    // --force: a worktree directory deleted by hand stays registered, and blocks a plain add. Not
    // `worktree prune` first: run beside another process's add, it removes the entry that add is
    // still making.
    const args = ['worktree', 'add', '--force', '--detach', path, await this.baseRef()];
    // Two tasks starting together add worktrees to one repository at once (outside the pool lock),
    // and git reads every registered worktree's files as it adds one: it may read one the other add
    // is still writing ("failed to read .git/worktrees/<name>/commondir"). Nothing is created then.
    for (let attempt = 1; ; attempt++) {
      const result = await this.git.attempt(this.dir, args);
      if (result.ok) break;
      if (attempt >= ADD_ATTEMPTS || !/failed to read .*worktrees[\\/]/.test(result.stderr)) throw gitFailure(this.dir, args, result);
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
    this.log.info('worktree created', { project: this.project.name, path });
  }

  /**
   * Puts the worktree on `branch`: the local branch if it exists, else a tracking branch for
   * `<remote>/<branch>`, else a new branch from the base (without tracking the default branch,
   * so a plain `git push` can never land on it).
   */
  async switchToBranch(worktree: string, branch: string): Promise<'current' | 'local' | 'remote' | 'new'> {
    const current = await this.git.attempt(worktree, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    if (current.ok && current.stdout.trim() === branch) return 'current';
    if (await this.git.hasRef(worktree, `refs/heads/${branch}`)) {
      await this.switch(worktree, [branch], branch);
      return 'local';
    }
    const remoteRef = `${this.remote}/${branch}`;
    if ((await this.hasRemote()) && (await this.git.hasRef(worktree, `refs/remotes/${remoteRef}`))) {
      await this.switch(worktree, ['--create', branch, '--track', remoteRef], branch);
      return 'remote';
    }
    await this.switch(worktree, ['--no-track', '--create', branch, await this.baseRef()], branch);
    return 'new';
  }

  /** Links the task's TASK.md into the worktree root (replacing a stale link or leftover copy). */
  async linkTask(worktree: string, taskFile: string): Promise<void> {
    const link = join(worktree, TASK_LINK);
    const stat = await lstat(link).catch(() => null);
    if (stat?.isSymbolicLink() && (await readlink(link)) === taskFile) return;
    if (stat) {
      if (!stat.isSymbolicLink() && (await this.git.attempt(worktree, ['ls-files', '--error-unmatch', '--', TASK_LINK])).ok) {
        throw new OrangeError('E_WORKSPACE', `the repository of project ${this.project.name} tracks its own ${TASK_LINK}, so the task file cannot be linked into ${worktree}`);
      }
      await unlink(link);
    }
    await symlink(taskFile, link);
  }

  /** Removes the TASK.md link (or a copy an editor left in its place); a missing one is fine. */
  async unlinkTask(worktree: string): Promise<void> {
    const link = join(worktree, TASK_LINK);
    const stat = await lstat(link).catch(() => null);
    if (!stat) return;
    if (!stat.isSymbolicLink()) {
      if ((await this.git.attempt(worktree, ['ls-files', '--error-unmatch', '--', TASK_LINK])).ok) return;
      this.log.warn('TASK.md in the worktree was a file, not the link; removed it', { worktree });
    }
    await unlink(link);
  }

  /**
   * Adds each pattern missing from the exclude file git reads for the worktree. Git has no exclude
   * file of a worktree's own: `info/exclude` is the repository's, read by the user's checkout too.
   * So what Orange adds goes between two marker lines, and `removeExcludes` (on `project remove`)
   * takes exactly those lines out again; a pattern the user had already is not added.
   */
  async exclude(worktree: string, patterns: readonly string[]): Promise<void> {
    const file = await this.excludePath(worktree);
    const existing = await readExclude(file);
    const present = new Set(existing.split('\n').map((l) => l.trim()));
    const missing = [...new Set(patterns)].filter((p) => !present.has(p));
    if (missing.length === 0) return;
    await mkdir(dirname(file), { recursive: true });
    // Worktrees share one exclude file; appending (not rewriting) never drops a line another process just added.
    const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
    await appendFile(file, `${separator}${EXCLUDE_BEGIN}\n${missing.join('\n')}\n${EXCLUDE_END}\n`, 'utf8');
  }

  /** Takes the lines `exclude` added out of the repository's exclude file, leaving every other line as it is. */
  async removeExcludes(): Promise<void> {
    const file = await this.excludePath(this.dir);
    const existing = await readExclude(file);
    const kept = withoutOrangeLines(existing);
    if (kept !== existing) await writeFileAtomic(file, kept);
  }
  /** The exclude file git reads, asked from the repository or any of its worktrees (the same file), once. */
  private async excludePath(from: string): Promise<string> {
    this.excludeFile ??= resolve(from, (await this.git.run(from, ['rev-parse', '--git-path', 'info/exclude'])).trim());
    return this.excludeFile;
  }


  /** Removes a worktree and its registration; a directory already deleted by hand is only pruned. */
  async removeWorktree(path: string): Promise<void> {
    if (existsSync(path)) {
      await this.unlinkTask(path);
      await this.git.run(this.dir, ['worktree', 'remove', path]);
    }
    await this.git.attempt(this.dir, ['worktree', 'prune']);
    this.log.info('worktree removed', { project: this.project.name, path });
  }

  /**
   * Where a branch called `name` exists already: `a local branch`, or `<remote>/<name>` on any
   * remote (asked of each remote with ls-remote, so a branch nobody fetched counts too; an
   * unreachable remote falls back to its fetched refs). Null when it exists nowhere.
   */
  async branchTaken(name: string, dir: string = this.dir, options: { readonly remotesOnly?: boolean } = {}): Promise<string | null> {
    if (!options.remotesOnly && (await this.git.hasRef(dir, `refs/heads/${name}`))) return 'a local branch';
    const remotes = (await this.git.attempt(dir, ['remote'])).stdout.split('\n').map((r) => r.trim()).filter(Boolean);
    for (const remote of remotes) {
      const listed = await this.git.attempt(dir, ['ls-remote', '--heads', remote, `refs/heads/${name}`]);
      const found = listed.ok ? listed.stdout.trim() !== '' : await this.git.hasRef(dir, `refs/remotes/${remote}/${name}`);
      if (found) return `${remote}/${name}`;
    }
    return null;
  }

  /** Paths with uncommitted changes (untracked files included; excluded ones such as TASK.md are not). */
  async changedFiles(worktree: string): Promise<string[]> {
    const out = await this.git.run(worktree, ['status', '--porcelain']);
    return out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => l.slice(3));
  }

  /**
   * Removes every untracked and ignored file of a worktree (`git clean -ffdx`) but those matching
   * `keep` (exclude patterns, e.g. `node_modules`), and the TASK.md link, which is made again.
   */
  async clean(worktree: string, keep: readonly string[]): Promise<void> {
    await this.git.run(worktree, ['clean', '-ffdxq', ...keep.flatMap((pattern) => ['-e', pattern])]);
  }

  /** Puts a worktree back to the base: discards changes, removes untracked files, detaches at the base. */
  async reset(worktree: string): Promise<void> {
    await this.git.run(worktree, ['reset', '--quiet', '--hard']);
    await this.git.run(worktree, ['clean', '-fdq']);
    await this.git.run(worktree, ['switch', '--quiet', '--detach', await this.baseRef()]);
    await this.unlinkTask(worktree);
  }

  private async switch(worktree: string, args: string[], branch: string): Promise<void> {
    const result = await this.git.attempt(worktree, ['switch', '--quiet', ...args]);
    if (result.ok) return;
    const inUse = /already (checked out|used by worktree) at '([^']+)'/.exec(result.stderr);
    if (inUse) {
      throw new OrangeError('E_WORKSPACE', `branch ${branch} is checked out in ${inUse[2]}; switch that checkout to another branch and retry`);
    }
    const reason = result.stderr.split('\n').find((l) => /^(fatal|error):/.test(l)) ?? result.stderr.trim();
    throw new OrangeError('E_WORKSPACE', `cannot put ${worktree} on branch ${branch}: ${reason.replace(/^(fatal|error):\s*/, '')}`);
  }

  private async commonDir(dir: string): Promise<string> {
    const out = await this.git.run(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
    return out.trim();
  }
}
