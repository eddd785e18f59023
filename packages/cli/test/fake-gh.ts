import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A pull request's state as gh prints it. */
export type FakePullRequestState = 'OPEN' | 'MERGED' | 'CLOSED';

/** The stand-in gh of a test: where it is, what it was asked, and the states it answers with. */
export interface FakeGh {
  readonly bin: string;
  /** `PATH` with the stand-in first, for the env of a command. */
  readonly env: Record<string, string>;
  /** The number the next `gh pr create` answers with (`https://github.com/example/app/pull/N`). */
  nextPullRequest(n: number): Promise<void>;
  /** The state `gh pr view …/pull/N --json state,url[,…]` answers with from now on. */
  setState(n: number, state: FakePullRequestState): Promise<void>;
  /** Every call so far, one argument line each. */
  calls(): Promise<string[]>;
}

/**
 * A stand-in for the GitHub CLI, logged in, in `dir/fake-gh`: `pr create` answers with the URL
 * of the number set by `nextPullRequest`; `pr view URL --json state,url` prints the state set
 * for that number, as real gh does (`{"state":"MERGED","url":…}`), and with the feedback fields
 * after them (`--json state,url,headRefOid,…`) no checks and no reviews besides; anything else fails.
 */
export async function fakeGh(dir: string, path: string): Promise<FakeGh> {
  const bin = join(dir, 'fake-gh');
  await mkdir(bin, { recursive: true });
  const calls = join(bin, 'calls.txt');
  await writeFile(
    join(bin, 'gh'),
    [
      '#!/bin/sh',
      `dir=${JSON.stringify(bin)}`,
      'echo "$*" >> "$dir/calls.txt"',
      'case "$1 $2" in',
      '  "auth status") exit 0 ;;',
      '  "pr create") echo "https://github.com/example/app/pull/$(cat "$dir/next-pr")"; exit 0 ;;',
      '  "pr view")',
      '    state="$dir/pr-${3##*/}.state"',
      '    if [ "$4 $5" = "--json state,url" ] && [ -f "$state" ]; then',
      '      printf \'{"state":"%s","url":"%s"}\\n\' "$(cat "$state")" "$3"; exit 0',
      '    fi',
      '    case "$4 $5" in "--json state,url,"*)',
      '      if [ -f "$state" ]; then',
      '        printf \'{"state":"%s","url":"%s","headRefOid":"","reviewDecision":"","statusCheckRollup":[],"latestReviews":[]}\\n\' "$(cat "$state")" "$3"; exit 0',
      '      fi ;;',
      '    esac',
      '    echo "no pull requests found for branch" >&2; exit 1 ;;',
      'esac',
      'echo "unexpected: gh $*" >&2',
      'exit 1',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  await writeFile(calls, '');
  return {
    bin,
    env: { PATH: `${bin}:${path}` },
    nextPullRequest: (n) => writeFile(join(bin, 'next-pr'), String(n)),
    setState: (n, state) => writeFile(join(bin, `pr-${n}.state`), state),
    calls: async () => (await readFile(calls, 'utf8')).split('\n').filter(Boolean),
  };
}
