/** `task list` says what needs attention: a vetoed exit rule, a failed action, a crash. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TaskMeta } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, root } from './cli-sandbox.js';

const plugin = (dir: string) => JSON.stringify(pathToFileURL(join(root, dir, 'dist/index.js')).href);
// Exit monitoring's moves are vetoed while the file "paused" exists in ORANGE_HOME.
const CONFIG = [
  "import { existsSync } from 'node:fs';",
  "import { join } from 'node:path';",
  `import { command } from ${plugin('plugins/harness-command')};`,
  'const pause = {',
  "  name: 'pause',",
  '  apply(orange) {',
  "    orange.hooks.beforeTransition.tapPromise('pause', async (e) =>",
  "      e.cause === 'auto' && existsSync(join(orange.paths.home, 'paused')) ? 'auto-advance is paused' : undefined);",
  '  },',
  '};',
  'export default {',
  "  harness: 'idle',",
  "  plugins: [command({ name: 'idle', worker: ['sleep', '300'] }), pause],",
  '};',
  '',
].join('\n');

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ config: CONFIG, poolSize: 8 });
});
afterAll(() => box?.cleanup());

interface ListJson {
  tasks: TaskMeta[];
  flags: Record<string, { attention?: { kind: string; reason: string } }>;
}

/**
 * Kills a task's worker window and has the exit handled. The monitor's pass handles it even when
 * the agent wrapper was killed before it could report (it had only just started).
 */
async function killWorker(meta: TaskMeta): Promise<void> {
  const killed = await box.tmux('kill-window', '-t', `=demo/${meta.id}:=worker`);
  expect(killed.code, killed.stderr).toBe(0);
  await box.json(['monitor', '--once']);
  try {
    await box.waitFor('the exit to be handled', async () => (await box.task(meta.id)).meta.worker_spawn === null && (await box.history(meta.id)).some((e) => e.type === 'agent.exited'));
  } catch (error) {
    const log = await box.orange(['log', '--lines', '30']);
    throw new Error(`${(error as Error).message}\nhistory: ${JSON.stringify(await box.history(meta.id))}\nlog:\n${log.stdout}${log.stderr}`);
  }
}

describe('orange task list', () => {
  it('marks a vetoed exit rule, a failed action and a crash with ! and says which in the legend', async () => {
    await writeFile(join(box.paths.home, 'paused'), '');
    const vetoed = await box.startTask('feature/vetoed');
    await box.writeSection(vetoed.id, 'Plan', 'APPROACH: one file\nTOUCHING: notes.md');
    await killWorker(vetoed);
    await box.waitFor('the refusal', async () => (await box.task(vetoed.id)).meta.attention !== null);

    // The status change stands when its action fails (whatever the exit code says about it).
    await box.orange(['task', 'create', 'feature/failed-hook', 'no such harness', '--harness', 'nope']);
    const failedId = (await box.json<ListJson>(['task', 'list'])).tasks.find((t) => t.branch === 'feature/failed-hook')?.id;
    const crashed = await box.startTask('feature/crashed');
    await killWorker(crashed);
    // The cleared spawn and agent.exited come before the exit rule counts the crash (crash_count, then agent.crashed).
    await box.waitFor('the crash to be counted', async () => (await box.history(crashed.id)).some((e) => e.type === 'agent.crashed'));

    const out = await box.json<ListJson>(['task', 'list']);
    expect(out.flags[vetoed.id]?.attention).toEqual({ kind: 'veto', reason: 'exit rule refused: planning → working refused: auto-advance is paused' });
    expect(out.flags[failedId as string]?.attention).toEqual({ kind: 'failed-hook', reason: 'hook failed: spawn_agent' });
    expect(out.flags[crashed.id]?.attention).toEqual({ kind: 'crash', reason: 'its agent crashed once in planning' });
    expect((await box.task(vetoed.id)).meta.crash_count).toBe(0);

    const human = (await box.orange(['task', 'list'])).stdout;
    for (const id of [vetoed.id, failedId, crashed.id]) expect(human).toMatch(new RegExp(`^${id}\\s+\\S+ !`, 'm'));
    expect(human).toContain('! needs attention (see orange task show <id>):');
    expect(human).toContain(`  ${vetoed.id}  an exit rule's move was vetoed, the agent is gone: planning → working refused: auto-advance is paused`);
    expect(human).toContain(`  ${failedId}  hook failed: spawn_agent after the status changed`);
    expect(human).toContain(`  ${crashed.id}  its agent crashed once in planning (one more crash and it is stuck)`);
  });

  it("shows a task waiting in reviewing without its worker as healthy: no ✗, no respawn advice (a person's move is due; a worker is started when needed)", async () => {
    // Created for a person's review: its worker never ran (the same as one that left while waiting).
    const waiting = await box.createTask(['feature/waiting-review', 'ready for a look', '--status', 'reviewing']);
    expect(waiting).toMatchObject({ status: 'reviewing', worker_spawn: null });
    const listed = await box.json<{ flags: Record<string, { dead?: string[] }> }>(['task', 'list']);
    expect(listed.flags[waiting.id]?.dead ?? []).toEqual([]);
    const human = (await box.orange(['task', 'list'])).stdout;
    expect(human).toMatch(new RegExp(`^${waiting.id}\\s+reviewing\\s`, 'm'));
    expect(human).not.toMatch(new RegExp(`${waiting.id}.*✗`));
  });
});
