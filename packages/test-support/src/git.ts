import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The one git identity of every test's commits (CI machines have no global git config). */
export const TEST_GIT_IDENTITY: Readonly<Record<string, string>> = Object.freeze({
  GIT_AUTHOR_NAME: 'Orange Test',
  GIT_AUTHOR_EMAIL: 'test@orange.invalid',
  GIT_COMMITTER_NAME: 'Orange Test',
  GIT_COMMITTER_EMAIL: 'test@orange.invalid',
});

/**
 * Gives this process the test identity, for tests whose code under test runs git in-process
 * (a plugin's git children inherit `process.env`).
 */
export function useTestGitIdentity(): void {
  Object.assign(process.env, TEST_GIT_IDENTITY);
}

/**
 * Runs git in `cwd` as a test's own setup does: with the test identity and no system config
 * (the machine's /etc/gitconfig has no say). Returns stdout, trimmed; a failure throws with git's stderr.
 */
export function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...process.env, ...TEST_GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')} (in ${cwd}) failed: ${String(stderr).trim() || error.message}`));
      else resolve(String(stdout).trim());
    });
  });
}

export interface OriginOptions {
  /** The default branch of both (main). */
  readonly branch?: string;
  /** The files of the first commit, by path in the repository (a README.md unless said). */
  readonly files?: Readonly<Record<string, string>>;
  /** The first commit's subject. */
  readonly message?: string;
  /** More refspecs the first push pushes (`main:develop`: a second branch on the origin). */
  readonly alsoPush?: readonly string[];
  /**
   * Whether the clone has `origin/HEAD`, as a clone of a repository with commits does (true). A
   * clone of an empty origin, which this is, has none until it is set: false keeps it so.
   */
  readonly originHead?: boolean;
}

/**
 * A bare repository at `origin` whose default branch is `branch`, and at `clone` a clone of it
 * with one commit pushed: the world a project lives in. Returns the commit's hash.
 */
export async function makeOrigin(origin: string, clone: string, options: OriginOptions = {}): Promise<string> {
  const branch = options.branch ?? 'main';
  for (const dir of [dirname(origin), dirname(clone)]) await mkdir(dir, { recursive: true });
  await git(dirname(origin), 'init', '-q', '--bare', '-b', branch, origin);
  await git(dirname(clone), 'clone', '-q', origin, clone);
  await git(clone, 'checkout', '-q', '-b', branch);
  const files = options.files ?? { 'README.md': '# sandbox\n' };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(clone, path)), { recursive: true });
    await writeFile(join(clone, path), text);
  }
  await git(clone, 'add', '--', ...Object.keys(files));
  await git(clone, 'commit', '-q', '-m', options.message ?? 'initial commit');
  await git(clone, 'push', '-q', '-u', 'origin', branch, ...(options.alsoPush ?? []));
  if (options.originHead !== false) await git(clone, 'remote', 'set-head', 'origin', branch);
  return git(clone, 'rev-parse', 'HEAD');
}
