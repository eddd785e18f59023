#!/usr/bin/env node
// A reviewer that passes the review from inside its own tmux window, the way a real reviewer
// does: `orange task update --status reviewing`, a transition whose kill_reviewer ends this very
// window. It records what that call printed and how it ended in
// $ORANGE_HOME/self-review-<task>.json, then idles until the window is killed.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setSection } from '@orange/core';

const env = process.env;
const taskFile = env.ORANGE_TASK_FILE ?? 'TASK.md';
// Edit in place: TASK.md in the worktree is a link into $ORANGE_HOME.
writeFileSync(taskFile, setSection(readFileSync(taskFile, 'utf8'), 'Review', 'Verdict: PASS\n\nLooks good.'));
// Its stdin is the window's terminal, as for a command an agent runs in its shell: when tmux closes
// that terminal under a still-running call, Node aborts at exit ("Assertion failed" in ResetStdio).
const call = spawnSync('orange', ['task', 'update', '--status', 'reviewing'], { encoding: 'utf8', stdio: ['inherit', 'pipe', 'pipe'] });
// Its own pid and its wrapper's, so the test can check both are gone once the window is killed.
const record = { pids: [process.pid, process.ppid], status: call.status, signal: call.signal, stdout: call.stdout, stderr: call.stderr, error: call.error?.message ?? null };
writeFileSync(join(env.ORANGE_HOME ?? '.', `self-review-${env.ORANGE_TASK_ID}.json`), JSON.stringify(record));
setInterval(() => undefined, 1_000);
