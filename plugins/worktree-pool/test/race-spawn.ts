// One contender in the cross-process race: loads Orange on a shared home, prints "ready", waits
// for "go" on standard input, then tries to start its task. Prints one JSON line with the outcome
// and when its spawn began and ended (ms since the epoch, fractional: the contenders' clocks agree).
import { once } from 'node:events';
import { Orange, OrangePaths } from '@orange/core';
import { worktreePool } from '../src/index.js';
import { noopAgents } from './noop-agents.js';

const now = () => performance.timeOrigin + performance.now();
const [home, project, id] = process.argv.slice(2) as [string, string, string];
const orange = await Orange.create({ plugins: [worktreePool(), noopAgents()] }, { paths: new OrangePaths(home) });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.destroy();
const began = now();
try {
  const result = await orange.engine.spawn({ project, id });
  console.log(JSON.stringify({ id, started: true, workspace: result.task.meta.workspace, began, ended: now() }));
} catch (error) {
  const e = error as { code?: string; message?: string };
  console.log(JSON.stringify({ id, started: false, code: e.code, message: e.message, began, ended: now() }));
}
