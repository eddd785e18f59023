import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What the stand-in answers to one call: `stdout` as is when a string; any other value printed as
 * JSON, an object keeping only the fields a `--json a,b` call asks for (as gh prints them).
 * `pages`: a listing in pages, printed back to back with `--paginate` (as gh before 2.26 does),
 * only the first without.
 */
export interface GhAnswer {
  readonly stdout?: unknown;
  readonly pages?: readonly string[];
  readonly stderr?: string;
  readonly code?: number;
}

/**
 * Answers by the words a call begins with, the longest key first (`pr view <url>` before
 * `pr view`); a `gh api` call by `api <path>`, its query and flags left out.
 */
export type GhAnswers = Readonly<Record<string, GhAnswer>>;

/** A pull request's state as gh prints it. */
export type PullRequestState = 'OPEN' | 'MERGED' | 'CLOSED';

/** The stand-in gh of a test: where it is, what it answers, what it was asked. */
export interface StandInGh {
  /** The `gh` executable (for a plugin's `ghBin`). */
  readonly bin: string;
  /** The folder holding it, to put first on a PATH. */
  readonly binDir: string;
  /** `{ PATH }` with the stand-in first, for the environment of a command. */
  readonly env: Record<string, string>;
  /** Replaces what it answers from now on (a call with no answer fails, naming itself). */
  answer(answers: GhAnswers): Promise<void>;
  /** Adds to what it answers (a key given again is replaced). */
  add(answers: GhAnswers): Promise<void>;
  /** `gh auth status` succeeds and `gh pr create` answers with pull request `n`'s URL. */
  nextPullRequest(n: number): Promise<void>;
  /** `gh pr view <url of n> --json …` answers with `state`, no checks and no reviews, from now on. */
  setPullRequestState(n: number, state: PullRequestState): Promise<void>;
  /** Every call so far, as argv. */
  calls(): Promise<string[][]>;
}

/** The URL of pull request `n` of the repository the stand-in speaks for (example/app). */
export function pullRequestUrl(n: number): string {
  return `https://github.com/example/app/pull/${n}`;
}

/**
 * The stand-in itself: a node script, so that answers are JSON and argv is recorded exactly. Its
 * files are named in it, not in its environment: the program under test decides that one.
 */
const script = (callsFile: string, answersFile: string) => `#!${process.execPath}
const fs = require('node:fs');
const [callsFile, answersFile] = ${JSON.stringify([callsFile, answersFile])};
const args = process.argv.slice(2);
fs.appendFileSync(callsFile, JSON.stringify(args) + '\\n');
let answers = {};
try { answers = JSON.parse(fs.readFileSync(answersFile, 'utf8')); } catch {}
const words = args[0] === 'api' ? ['api', (args.slice(1).find((a) => !a.startsWith('-')) || '').split('?')[0]] : args;
let a;
for (let n = words.length; n > 0 && !a; n--) a = answers[words.slice(0, n).join(' ')];
if (!a) a = { stderr: 'unexpected gh call: ' + args.join(' '), code: 1 };
let out = a.pages ? (args.includes('--paginate') ? a.pages.join('') : a.pages[0]) : a.stdout;
if (out !== undefined && typeof out !== 'string') {
  const fields = args.includes('--json') ? (args[args.indexOf('--json') + 1] || '').split(',') : null;
  if (fields && out && typeof out === 'object' && !Array.isArray(out)) out = Object.fromEntries(fields.filter((f) => f in out).map((f) => [f, out[f]]));
  out = JSON.stringify(out);
}
if (out) process.stdout.write(out + '\\n');
if (a.stderr) process.stderr.write(a.stderr + '\\n');
process.exit(a.code || 0);
`;

/**
 * A stand-in for the GitHub CLI in `dir` (GitHub cannot be reached from CI): `dir/gh-bin/gh`
 * records each call's argv in `dir/gh-calls.jsonl` and answers from `dir/gh-answers.json`.
 * `path` is the PATH `env` puts it in front of.
 */
export async function standInGh(dir: string, path = process.env.PATH ?? ''): Promise<StandInGh> {
  const binDir = join(dir, 'gh-bin');
  const bin = join(binDir, 'gh');
  const callsFile = join(dir, 'gh-calls.jsonl');
  const answersFile = join(dir, 'gh-answers.json');
  await mkdir(binDir, { recursive: true });
  await writeFile(bin, script(callsFile, answersFile));
  await chmod(bin, 0o755);
  await writeFile(callsFile, '');
  let answers: Record<string, GhAnswer> = {};
  const write = () => writeFile(answersFile, JSON.stringify(answers));
  const gh: StandInGh = {
    bin,
    binDir,
    env: { PATH: `${binDir}:${path}` },
    async answer(next) {
      answers = { ...next };
      await write();
    },
    async add(more) {
      answers = { ...answers, ...more };
      await write();
    },
    nextPullRequest: (n) => gh.add({ 'auth status': {}, 'pr create': { stdout: pullRequestUrl(n) } }),
    setPullRequestState: (n, state) =>
      gh.add({ [`pr view ${pullRequestUrl(n)}`]: { stdout: { state, url: pullRequestUrl(n), headRefOid: '', reviewDecision: '', statusCheckRollup: [], latestReviews: [] } } }),
    async calls() {
      const text = await readFile(callsFile, 'utf8').catch(() => '');
      return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as string[]);
    },
  };
  await write();
  return gh;
}
