import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What the stand-in gh answers, keyed by its first two arguments ("pr view", "auth status"), or for
 * `gh api` by "api <path>" (query and flags left out). `pages`: a listing in pages, all printed back
 * to back with `--paginate` (as gh before 2.26 prints them), only the first without.
 */
export type GhAnswers = Record<string, { stdout?: string; pages?: string[]; stderr?: string; code?: number }>;

/** The stand-in gh of a test: where it is, what it answers, what it was asked. */
export interface StandInGh {
  readonly bin: string;
  /** Replaces what it answers from now on (a call without an answer fails, naming itself). */
  answer(answers: GhAnswers): Promise<void>;
  /** Every call so far, as argv. */
  calls(): Promise<string[][]>;
}

/**
 * A stand-in for the GitHub CLI in `dir` (shared by the github and reactions plugins' tests): a
 * script that records its argv to `dir/gh-calls.jsonl` and answers from `dir/gh-answers.json`.
 */
export async function standInGh(dir: string): Promise<StandInGh> {
  const bin = join(dir, 'bin', 'gh');
  const callsFile = join(dir, 'gh-calls.jsonl');
  const answersFile = join(dir, 'gh-answers.json');
  await mkdir(join(dir, 'bin'), { recursive: true });
  await writeFile(
    bin,
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(callsFile)}, JSON.stringify(args) + '\\n');
let answers = {};
try { answers = JSON.parse(fs.readFileSync(${JSON.stringify(answersFile)}, 'utf8')); } catch {}
const api = args[0] === 'api';
const path = api ? (args.slice(1).find((a) => !a.startsWith('-')) || '').split('?')[0] : '';
const a = answers[api ? 'api ' + path : args.slice(0, 2).join(' ')] || { stderr: 'unexpected gh call: ' + args.join(' '), code: 1 };
const stdout = a.pages ? (args.includes('--paginate') ? a.pages.join('') : a.pages[0]) : a.stdout;
if (stdout) process.stdout.write(stdout + '\\n');
if (a.stderr) process.stderr.write(a.stderr + '\\n');
process.exit(a.code || 0);
`,
  );
  await chmod(bin, 0o755);
  return {
    bin,
    answer: (answers) => writeFile(answersFile, JSON.stringify(answers)),
    async calls() {
      const text = await readFile(callsFile, 'utf8').catch(() => '');
      return text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]);
    },
  };
}
