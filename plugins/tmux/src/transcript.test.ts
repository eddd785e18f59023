/**
 * Agent transcripts: tmux pipe-pane feeds each agent's terminal output to the transcript writer,
 * which keeps it under the task's logs/ directory, capped and rotated.
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listTranscripts } from '@orange/core';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, tmuxSandbox, type TmuxSandbox } from '../test/tmux-sandbox.js';
import { transcriptWriterPath } from './dist-script-path.js';
import { transcriptPipeCommand } from './transcript-pipe.js';

let box: TmuxSandbox;

beforeAll(async () => {
  box = await tmuxSandbox();
});
afterAll(async () => {
  await box.cleanup();
});

describe('agent transcripts', () => {
  it("keeps a worker's terminal output from its first byte in logs/worker-<spawn>.log, readable by the user only", async () => {
    box.setAgent(() => ['sh', '-c', 'printf "first line from the agent\\n"; sleep 30']);
    const task = await box.newTask({ branch: 'transcript' });
    const spawnId = (await box.read(task)).meta.worker_spawn as string;
    const file = box.orange.paths.transcriptFile('demo', task.meta.id, 'worker', spawnId);
    const text = await eventually(() => readFile(file, 'utf8').then((t) => (t.includes('first line') ? t : null)));
    expect(text).toContain('first line from the agent');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const history = await box.orange.store.history('demo', task.meta.id);
    expect(history).toContainEqual(expect.objectContaining({ type: 'agent.spawned', role: 'worker', spawn: spawnId, transcript: file }));
    expect(await listTranscripts(box.orange.paths, 'demo', task.meta.id)).toEqual([
      expect.objectContaining({ role: 'worker', spawn: spawnId, file, rotated: null }),
    ]);
  });
});

describe('the pipe-pane command', () => {
  it('reaches a transcript path full of shell and tmux metacharacters intact', async () => {
    const dir = await mkdtemp(join(tmpdir(), "orange it's $HOME; #{pane_id} `x` "));
    const socket = `orange-pipe-${process.pid}-${randomBytes(3).toString('hex')}`;
    try {
      const file = join(dir, 'logs', "worker-a'b.log");
      await mkdir(join(dir, 'logs'));
      const command = transcriptPipeCommand(process.execPath, transcriptWriterPath(), file, 4096);
      await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 't', 'sh', '-c', 'sleep 0.2; echo out-of-the-pane; sleep 30', ';', 'pipe-pane', '-o', '-t', '=t:', command]);
      const text = await eventually(() => readFile(file, 'utf8').then((t) => (t.includes('out-of-the-pane') ? t : null)));
      expect(text).toContain('out-of-the-pane');
    } finally {
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the transcript writer', () => {
  it('rotates at the cap into <file>.1, keeping the newest output and at most twice the cap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-writer-'));
    try {
      const file = join(dir, 'logs', 'worker-abc.log');
      const writer = spawn(process.execPath, [transcriptWriterPath(), file, '4096'], { stdio: ['pipe', 'ignore', 'pipe'] });
      let stderr = '';
      writer.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const lines = Array.from({ length: 500 }, (_, i) => `line ${String(i).padStart(4, '0')} ${'x'.repeat(20)}\n`).join('');
      writer.stdin.end(lines);
      const code = await new Promise<number | null>((resolve) => writer.on('exit', resolve));
      expect(code, stderr).toBe(0);
      const current = await readFile(file, 'utf8');
      const older = await readFile(`${file}.1`, 'utf8');
      expect(Buffer.byteLength(older)).toBe(4096);
      expect(Buffer.byteLength(current)).toBeLessThanOrEqual(4096);
      expect((older + current).endsWith(lines.slice(-(older.length + current.length)))).toBe(true);
      expect(current.endsWith('line 0499 xxxxxxxxxxxxxxxxxxxx\n')).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
