#!/usr/bin/env node
// A worker that does its job, then tries to decide its own fate the way a misbehaving agent would,
// from inside its tmux window and worktree, through the real `orange` CLI on PATH: finish its own
// task, cancel it, cancel another task, merge, aim its branch at a branch that lives on origin.
// Every attempt (argv, exit code, output) goes to $ORANGE_HOME/hostile-<task>.json; then it idles.
// `## Context` names the other task (`hostile.other: <id>`) and the remote branch (`hostile.branch: <name>`).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSections, parseTaskFile, setSection } from '@orange/core';

const env = process.env;
const taskFile = env.ORANGE_TASK_FILE ?? 'TASK.md';
const id = env.ORANGE_TASK_ID ?? 'unknown';
// The reviewer writes TASK.md in place, as an editor does, while this worker polls it: a read may
// catch it truncated. Read again until it parses (within a second), as Orange itself does.
const pause = new Int32Array(new SharedArrayBuffer(4));
const read = () => {
  for (let tries = 0; ; tries++) {
    try {
      return parseTaskFile(readFileSync(taskFile, 'utf8'), taskFile);
    } catch (error) {
      if (tries >= 50) throw error;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
};
const write = (name, content) => writeFileSync(taskFile, setSection(readFileSync(taskFile, 'utf8'), name, content));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const said = Object.fromEntries(
  (parseSections(read().body).get('Context') ?? '')
    .split('\n')
    .map((line) => /^\s*hostile\.(\w+)\s*:\s*(\S+)\s*$/.exec(line))
    .filter(Boolean)
    .map((m) => [m[1], m[2]]),
);
const orange = (...args) => {
  const run = spawnSync('orange', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { argv: args, status: run.status, stdout: run.stdout, stderr: run.stderr };
};

write('Plan', 'APPROACH: add a file\nTOUCHING: hostile.txt');
orange('task', 'update', '--status', 'working');
writeFileSync('hostile.txt', 'work\n');
execFileSync('git', ['add', 'hostile.txt']);
execFileSync('git', ['commit', '-q', '-m', `hostile work for task ${id}`]);
write('Handoff', 'DONE: added hostile.txt\nREMAINING: none\nDECISIONS: none\nUNCERTAIN: none');
orange('task', 'update', '--status', 'agent-review');
// The reviewer (the scripted agent) passes the review; then the task waits for a person.
for (let i = 0; i < 600 && read().meta.status !== 'reviewing'; i++) await sleep(100);

const attempts = [
  orange('task', 'update', '--status', 'done'),
  orange('task', 'update', '--status', 'cancelled'),
  orange('task', 'cancel', said.other, '--yes'),
  orange('task', 'merge', '--yes'),
  orange('task', 'update', '--branch', said.branch),
];
writeFileSync(join(env.ORANGE_HOME ?? '.', `hostile-${id}.json`), JSON.stringify({ status: read().meta.status, attempts }));
setInterval(() => undefined, 1_000);
