#!/usr/bin/env node
// A worker that leaves where the scripted agent would stay: started in `clarification` it writes
// ## Questions and exits; started in `stuck` it exits at once. Anywhere else it is the scripted
// agent (packages/cli/agents/scripted-agent.mjs), with the same directives. The exit-rules e2e
// test uses it to see what Orange does when an agent exits in a status whose rule is "mark".
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTaskFile, setSection } from '@orange/core';

const env = process.env;
const role = env.ORANGE_ROLE ?? 'worker';
const taskFile = env.ORANGE_TASK_FILE ?? 'TASK.md';
const taskId = env.ORANGE_TASK_ID ?? 'unknown';
const scripted = resolve(dirname(fileURLToPath(import.meta.url)), '../../cli/agents/scripted-agent.mjs');

function log(message) {
  const dir = join(env.ORANGE_HOME ?? '.', 'agent-logs');
  mkdirSync(dir, { recursive: true });
  const line = `[${new Date().toISOString().slice(11, 23)}] ${role}: ${message}`;
  console.log(line);
  appendFileSync(join(dir, `${taskId}.log`), `${line}\n`);
}

const status = parseTaskFile(readFileSync(taskFile, 'utf8'), taskFile).meta.status;
if (role === 'worker' && status === 'clarification') {
  // Edit in place: TASK.md in the worktree is a link into $ORANGE_HOME.
  writeFileSync(taskFile, setSection(readFileSync(taskFile, 'utf8'), 'Questions', '1. What should the greeting say?\n2. Where should it go?'));
  log('wrote ## Questions; leaving without a word');
  process.exit(0);
}
if (role === 'worker' && status === 'stuck') {
  log('started in stuck; leaving without a word');
  process.exit(0);
}
const child = spawn(process.execPath, [scripted, ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
