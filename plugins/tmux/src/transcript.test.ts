/**
 * Agent transcripts: tmux pipe-pane feeds each agent's terminal output to its wrapper, which keeps
 * it under the task's logs/ directory, capped and rotated.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listTranscripts } from '@orange/core';
import { processAlive, TmuxServer } from '@orange/test-support';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, tmuxSandbox, type TmuxSandbox } from '../test/tmux-sandbox.js';
import { agentWrapperPath } from './dist-script-path.js';
import { TranscriptFile } from './transcript-file.js';
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

describe('the end of a transcript', () => {
  it('keeps what an agent printed just before it exited, without the fence, and leaves no FIFO behind', async () => {
    // A burst right before the exit: tmux is still pumping it through the pipe when the agent is gone.
    box.setAgent(() => ['sh', '-c', 'seq 1 30000; printf "the very last words, no newline"']);
    const task = await box.newTask({ branch: 'transcript-end' });
    const spawnId = (await box.read(task)).meta.worker_spawn as string;
    const file = box.orange.paths.transcriptFile('demo', task.meta.id, 'worker', spawnId);
    const logs = box.orange.paths.taskLogsDir('demo', task.meta.id);
    // The window closes when the wrapper exits: after the fence came back and the file was closed.
    await eventually(async () => !(await box.windows()).some((w) => w.includes(task.meta.id)));
    // The wrapper removed its FIFO.
    expect(await readdir(logs)).toEqual([`worker-${spawnId}.log`]);
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('the very last words, no newline'), JSON.stringify(text)).toBe(true);
    expect(text).toContain('\n29999\r\n30000\r\n');
    expect(text).not.toContain('orange-fence');
  });
});

describe('how many transcripts are kept', () => {
  it("keeps a role's 10 most recent spawns: an agent's start removes the older ones of its role only", async () => {
    box.setAgent(() => ['sh', '-c', 'echo kept; sleep 30']);
    const task = await box.newTask({ branch: 'transcripts-kept', status: 'agent-review' });
    const logs = box.orange.paths.taskLogsDir('demo', task.meta.id);
    const first = (await box.read(task)).meta.reviewer_spawn as string;
    await eventually(async () => (await readdir(logs).catch(() => [] as string[])).includes(`reviewer-${first}.log`));
    await box.runAction(task, 'kill_reviewer');
    // Twelve earlier spawns of each role, a second apart, the oldest first, all older than `first`'s.
    const past = Date.now() / 1000 - 3600;
    for (const role of ['worker', 'reviewer']) {
      for (let i = 0; i < 12; i++) {
        const file = join(logs, `${role}-old${String(i).padStart(2, '0')}.log`);
        await writeFile(file, 'x');
        await utimes(file, past + i, past + i);
      }
    }
    // Transcripts only, not the FIFO a running wrapper reads its pane through.
    const ofRole = async (role: string) => (await readdir(logs)).filter((name) => name.startsWith(`${role}-`) && name.endsWith('.log')).sort();
    const workers = await ofRole('worker');
    await box.runAction(task, 'spawn_reviewer');
    const latest = (await box.read(task)).meta.reviewer_spawn as string;
    // The new spawn's transcript is made by its wrapper, once the window runs.
    await eventually(async () => (await readdir(logs)).includes(`reviewer-${latest}.log`));
    const kept = ['old04', 'old05', 'old06', 'old07', 'old08', 'old09', 'old10', 'old11', first, latest].map((spawn) => `reviewer-${spawn}.log`);
    expect(await ofRole('reviewer')).toEqual(kept.sort());
    expect(await ofRole('worker')).toEqual(workers);
  });
});

describe('the pipe-pane command', () => {
  it('reaches a transcript path full of shell and tmux metacharacters intact', async () => {
    const dir = await mkdtemp(join(tmpdir(), "orange it's $HOME; #{pane_id} `x` "));
    const server = TmuxServer.fresh('pipe');
    try {
      const file = join(dir, 'logs', "worker-a'b.log");
      await mkdir(join(dir, 'logs'));
      const wrapper = [process.execPath, agentWrapperPath(), '--project', 'demo', '--task', 'T'.repeat(21), '--role', 'worker', '--spawn', 'S1'];
      const transcript = ['--transcript', file, '--transcript-max', '4096', '--tmux', 'tmux'];
      await server.out('new-session', '-d', '-s', 't', ...wrapper, ...transcript, '--', 'sh', '-c', 'echo out-of-the-pane; sleep 30');
      const text = await eventually(() => readFile(file, 'utf8').then((t) => (t.includes('out-of-the-pane') ? t : null)));
      expect(text).toContain('out-of-the-pane');
    } finally {
      await server.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the pipe-pane command, when its wrapper is gone', () => {
  // The wrapper SIGKILLed before tmux's shell opened the FIFO (seen on a busy machine): the FIFO is
  // left with no reader. `exec cat > fifo` then waited in open() for ever, outliving the tmux server.
  it.each([
    ['the pane ends with nothing more printed (EOF)', ''],
    ['the pane prints on (SIGPIPE)', 'more output\n'],
  ])('ends when %s', async (_case, printed) => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-orphan-pipe-'));
    const fifo = join(dir, 'worker-S1.log.pipe');
    await execa('mkfifo', ['-m', '600', fifo]);
    const shell = execa('sh', ['-c', transcriptPipeCommand(fifo)], { stdin: 'pipe', reject: false });
    try {
      // As tmux does: what the pane prints goes to the shell's input, and the pane's end closes it.
      shell.stdin?.end(printed);
      const ended = await Promise.race([shell.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000))]);
      expect(ended, `the pipe's shell (pid ${shell.pid}) still waits 10 s after its input ended: ${await readFile(`/proc/${shell.pid}/wchan`, 'utf8').catch(() => '?')}`).toBe(true);
    } finally {
      if (shell.pid !== undefined && processAlive(shell.pid)) shell.kill('SIGKILL');
      await shell;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does nothing when the wrapper already removed its FIFO (no file is made in its place)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-orphan-pipe-'));
    try {
      const fifo = join(dir, 'worker-S1.log.pipe');
      const shell = await execa('sh', ['-c', transcriptPipeCommand(fifo)], { input: 'late output\n', reject: false, timeout: 10_000 });
      expect(shell.timedOut).toBe(false);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the transcript file', () => {
  it('rotates at the cap into <file>.1, keeping the newest output and at most twice the cap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-transcript-'));
    try {
      const file = join(dir, 'logs', 'worker-abc.log');
      const transcript = new TranscriptFile(file, 4096);
      const lines = Array.from({ length: 500 }, (_, i) => `line ${String(i).padStart(4, '0')} ${'x'.repeat(20)}\n`).join('');
      // In uneven chunks, as a pipe delivers them: a chunk may straddle the cap.
      for (let at = 0; at < lines.length; at += 777) transcript.write(Buffer.from(lines.slice(at, at + 777)));
      transcript.close();
      const current = await readFile(file, 'utf8');
      const older = await readFile(`${file}.1`, 'utf8');
      expect(Buffer.byteLength(older)).toBe(4096);
      expect(Buffer.byteLength(current)).toBeLessThanOrEqual(4096);
      expect((older + current).endsWith(lines.slice(-(older.length + current.length)))).toBe(true);
      expect(current.endsWith('line 0499 xxxxxxxxxxxxxxxxxxxx\n')).toBe(true);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
