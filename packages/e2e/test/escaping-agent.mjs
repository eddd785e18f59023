#!/usr/bin/env node
// A worker that tries to go around Orange the way a hostile agent running as the same user could:
// straight at Orange's files under the host's $ORANGE_HOME (named in `## Context` as `escape.home`,
// as an agent could guess it), and at a person's commands with its identity taken off. Each attack
// is tried once; what the host's files say afterwards is the test's to judge (in a container a
// write can land in the container's own files and look like success), so this only records
// whether each write or command seemed to go through. Results go to $ORANGE_AGENT_LOG_DIR/escape-<task>.json;
// then it idles (its task stays where it is).
import { appendFileSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, dirname, join } from 'node:path';

const env = process.env;
const id = env.ORANGE_TASK_ID ?? 'unknown';
const project = env.ORANGE_PROJECT ?? 'demo';
const said = Object.fromEntries(
  readFileSync(env.ORANGE_TASK_FILE ?? 'TASK.md', 'utf8')
    .split('\n')
    .map((line) => /^\s*escape\.(\w+)\s*:\s*(\S+)\s*$/.exec(line))
    .filter(Boolean)
    .map((m) => [m[1], m[2]]),
);
const home = said.home;
const taskDir = join(home, 'tasks', project, id);
const stateFile = join(taskDir, 'state.json');

/** Runs one attack: ok when every step of it went through, else the first error. */
function attempt(name, steps) {
  try {
    steps();
    return { name, ok: true };
  } catch (error) {
    return { name, ok: false, error: String(error.message ?? error).split('\n')[0] };
  }
}

function editState(edit) {
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  edit(state.meta);
  writeFileSync(stateFile, JSON.stringify(state));
}

function fifo(path) {
  rmSync(path, { force: true });
  const made = spawnSync('mkfifo', [path], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo: ${made.stderr || made.error?.message}`);
}

// A third task's files are broken, so that each attack leaves its own effect for the test to find.
const victimDir = join(home, 'tasks', project, said.victim);
const attacks = [
  // Aim its branch at origin's `release` and make the ledger agree: a merge would then push/delete `release`.
  attempt('state-and-ledger', () => {
    editState((meta) => {
      meta.branch = 'release';
      meta.status = 'reviewing';
    });
    appendFileSync(join(taskDir, 'history.jsonl'), `${JSON.stringify({ type: 'status.changed', from: 'planning', to: 'reviewing', cause: 'forged', timestamp: new Date().toISOString() })}\n`);
  }),
  attempt('review-round', () => editState((meta) => (meta.review_round = 7))),
  attempt('budget', () => editState((meta) => (meta.budget_usd = 1_000_000))),
  attempt('cancel-other', () => {
    const { ORANGE_AGENT_SECRET: _s, ORANGE_TASK_ID: _t, ORANGE_SPAWN_ID: _p, ORANGE_PROJECT: _j, ...person } = env;
    const run = spawnSync('orange', ['task', 'cancel', said.other, '--yes'], { encoding: 'utf8', env: person });
    if (run.status !== 0) throw new Error(`exit ${run.status}: ${(run.stderr || run.error?.message || '').trim()}`);
  }),
  // TASK.md's sealed fields are trusted again without a state file.
  attempt('delete-state', () => unlinkSync(join(victimDir, 'state.json'))),
  attempt('index', () => writeFileSync(join(home, 'tasks', project, '.index.json'), '{"forged":true}')),
  attempt('outbox', () => {
    mkdirSync(join(home, 'outbox'), { recursive: true });
    writeFileSync(join(home, 'outbox', `forged-${id}.json`), '{"forged":true}');
  }),
  attempt('fifo-log', () => fifo(join(home, 'orange.log'))),
  attempt('fifo-history', () => fifo(join(victimDir, 'history.jsonl'))),
  // Another task's worktree (the pool's other one), and the home of the user Orange runs as.
  attempt('other-worktree', () => {
    const own = process.cwd();
    const other = join(dirname(own), basename(own).replace(/--(\d+)$/, (_, n) => `--${n === '1' ? 2 : 1}`));
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, `escaped-${id}.txt`), 'written by another task\n');
  }),
  attempt('host-home', () => {
    mkdirSync(said.hosthome, { recursive: true });
    writeFileSync(join(said.hosthome, `.orange-escaped-${id}`), 'written by an agent\n');
  }),
];

writeFileSync(join(env.ORANGE_AGENT_LOG_DIR ?? '.', `escape-${id}.json`), JSON.stringify(attacks));
console.log(JSON.stringify(attacks, null, 1));
setInterval(() => undefined, 1_000);
