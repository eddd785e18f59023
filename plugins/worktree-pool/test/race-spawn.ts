// One contender in the cross-process race: loads Orange on a shared home, waits for the common
// start time, then tries to start its task. Prints one JSON line with the outcome.
import { Orange, OrangePaths } from '@orange/core';
import { worktreePool } from '../src/index.js';
import { noopAgents } from './noop-agents.js';

const [home, project, id, startAt] = process.argv.slice(2) as [string, string, string, string];
const orange = await Orange.create({ plugins: [worktreePool(), noopAgents()] }, { paths: new OrangePaths(home) });
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
try {
  const result = await orange.engine.spawn({ project, id });
  console.log(JSON.stringify({ id, started: true, workspace: result.task.meta.workspace }));
} catch (error) {
  const e = error as { code?: string; message?: string };
  console.log(JSON.stringify({ id, started: false, code: e.code, message: e.message }));
}
