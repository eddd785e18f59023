/**
 * Agent transcripts through the CLI: `task output` prints what an agent's terminal showed (and
 * follows it while it runs), `task show` lists transcripts and the harness that actually ran,
 * and `task delete` removes them with the task.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import type { TaskMeta, Transcript } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox, root } from './cli-sandbox.js';

const plugin = (dir: string) => JSON.stringify(pathToFileURL(join(root, dir, 'dist/index.js')).href);
// `chatty` greets in colour (an escape sequence a terminal would obey), then prints a line whenever
// the file named in its environment appears, then idles; `idle` (the default) prints nothing.
const CHATTY = String.raw`printf '\033[31mhello from the worker\033[0m\033]0;pwned\007\n'; while [ ! -e "$ORANGE_HOME/say-more" ]; do sleep 0.05; done; printf 'a later line\n'; sleep 300`;
const CONFIG = [
  `import { command } from ${plugin('plugins/harness-command')};`,
  'export default {',
  "  harness: 'idle',",
  '  plugins: [',
  "    command({ name: 'idle', worker: ['sleep', '300'] }),",
  `    command({ name: 'chatty', worker: ['sh', '-c', ${JSON.stringify(CHATTY)}] }),`,
  '  ],',
  '};',
  '',
].join('\n');

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ config: CONFIG, poolSize: 8 });
});
afterAll(() => box?.cleanup());

interface ShowJson {
  task: TaskMeta;
  transcripts: Transcript[];
  agents: Array<{ role: string; spawn: string; harness: string }>;
}

async function chattyTask(branch: string): Promise<TaskMeta> {
  const meta = await box.createTask([branch, 'talk a little', '--harness', 'chatty'], { spawn: true });
  await box.waitFor('the greeting in the transcript', async () => (await box.json<{ text: string }>(['task', 'output', meta.id])).text.includes('hello'));
  return meta;
}

describe('orange task output', () => {
  it("prints the worker's terminal output with escape sequences removed; --json gives the text and the transcript", async () => {
    const meta = await chattyTask('feature/output');
    const human = await box.orange(['task', 'output', meta.id]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe('hello from the worker');
    const out = await box.json<{ text: string; running: boolean; transcript: Transcript }>(['task', 'output', meta.id, '--role', 'worker']);
    expect(out).toMatchObject({ running: true, text: 'hello from the worker\n', transcript: { role: 'worker', spawn: meta.worker_spawn } });
    expect(out.transcript.file).toBe(box.paths.transcriptFile('demo', meta.id, 'worker', meta.worker_spawn as string));
  });

  it('refuses a role that has no transcript, naming the spawns there are; --raw into a pipe keeps the recorded bytes', async () => {
    const meta = await chattyTask('feature/no-reviewer');
    const refused = await box.jsonError(['task', 'output', meta.id, '--role', 'reviewer']);
    expect(refused).toMatchObject({ code: 'E_INVALID_INPUT', exit: 1 });
    expect(refused.error).toBe(`task ${meta.id} has no reviewer transcript (spawns: worker ${meta.worker_spawn})`);
    const raw = await box.orange(['task', 'output', meta.id, '--raw']);
    expect(raw.stdout).toContain('\u001b[31mhello from the worker');
  });

  it('--follow prints new output as it comes and ends when the agent exits', async () => {
    const meta = await chattyTask('feature/follow');
    const follow = execa(process.execPath, [CLI, 'task', 'output', meta.id, '--follow'], { env: box.env, extendEnv: false, reject: false, cwd: box.repo, timeout: 30_000 });
    let seen = '';
    follow.stdout?.on('data', (d: Buffer) => (seen += d.toString()));
    await box.waitFor('the greeting from --follow', async () => seen.includes('hello from the worker'));
    await execa('touch', [join(box.paths.home, 'say-more')]);
    await box.waitFor('the later line from --follow', async () => seen.includes('a later line'));
    await box.tmux('kill-window', '-t', `=demo/${meta.id}:=worker`);
    // The wrapper reports the exit; the monitor's pass is the backstop.
    await box.json(['monitor', '--once']);
    const result = await follow;
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stdout)).toBe('hello from the worker\na later line');
  });
});

describe('orange task show', () => {
  it('lists the transcripts and the harness that actually ran when the task names none', async () => {
    const meta = await box.createTask(['feature/default-harness', 'use the default'], { spawn: true });
    const out = await box.json<ShowJson>(['task', 'show', meta.id]);
    expect(out.task.harness).toBeNull();
    expect(out.agents).toEqual([expect.objectContaining({ role: 'worker', spawn: meta.worker_spawn, harness: 'idle' })]);
    await box.waitFor('the transcript file', async () => (await box.json<ShowJson>(['task', 'show', meta.id])).transcripts.length === 1);
    const human = await box.orange(['task', 'show', meta.id]);
    expect(human.stdout).toMatch(/^harness: - \(ran: idle\)$/m);
    expect(human.stdout).toMatch(new RegExp(`^  worker\\s+${meta.worker_spawn}\\s+idle\\s+0 B\\s+`, 'm'));
  });
});

describe('orange task delete', () => {
  it("removes the task's transcripts with it", async () => {
    const meta = await chattyTask('feature/delete-logs');
    const logs = box.paths.taskLogsDir('demo', meta.id);
    expect(existsSync(logs)).toBe(true);
    await box.json(['task', 'cancel', meta.id, '--yes']);
    await box.json(['task', 'delete', meta.id, '--yes']);
    expect(existsSync(logs)).toBe(false);
    expect(existsSync(box.paths.taskDir('demo', meta.id))).toBe(false);
  });
});
