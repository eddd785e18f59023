import { mkdtemp, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listProcesses } from '@orange/core';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@orange/test-support';
import { eventually } from '../test/tmux-sandbox.js';
import { agentWrapperPath } from './dist-script-path.js';

let dir: string;
let cli: string;
let log: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-wrapper-'));
  cli = join(dir, 'cli.mjs');
  log = join(dir, 'calls.jsonl');
  await writeFile(cli, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ids = ['--project', 'demo', '--task', 'T'.repeat(21), '--role', 'reviewer', '--spawn', 'S123456789'];

/** The command lines (of processes still running) that hold `marker`. */
async function commandLinesWith(marker: string): Promise<string[]> {
  const lines: string[] = [];
  for (const { pid, zombie } of await listProcesses()) {
    if (zombie) continue;
    const line = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    if (line.includes(marker)) lines.push(line);
  }
  return lines;
}

async function calls(): Promise<string[][]> {
  return (await readFile(log, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]);
}

describe('agent wrapper', () => {
  it('runs the agent with inherited stdio, exits with its code and reports the exit', async () => {
    const result = await execa(process.execPath, [agentWrapperPath(), '--cli', cli, ...ids, '--', 'sh', '-c', 'echo out; echo err >&2; exit 7'], { reject: false });
    expect(result.exitCode).toBe(7);
    expect(result.stdout).toBe('out');
    expect(result.stderr).toBe('err');
    const reported = await eventually(async () => (await calls()).find((c) => c.includes('7')));
    expect(reported).toEqual(['agent', 'exited', ...ids, '--code', '7']);
  });

  it('forwards SIGTERM to the agent and reports 128 + signal when it dies of it', async () => {
    const child = execa(process.execPath, [agentWrapperPath(), '--cli', cli, ...ids.slice(0, -1), 'SIGTERM0001', '--', 'sleep', '30'], { reject: false });
    // The signal must arrive once the wrapper runs the agent (its handlers are set by then).
    await eventually(async () => (await listProcesses()).some((p) => p.ppid === child.pid));
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(143);
    const reported = await eventually(async () => (await calls()).find((c) => c.includes('SIGTERM0001')));
    expect(reported.slice(-2)).toEqual(['--code', '143']);
  });

  it('reports 127 when the agent cannot be started', async () => {
    const result = await execa(process.execPath, [agentWrapperPath(), '--cli', cli, ...ids.slice(0, -1), 'NOTFOUND01', '--', 'no-such-agent-binary-xyz'], { reject: false });
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toMatch(/cannot start no-such-agent-binary-xyz/);
    const reported = await eventually(async () => (await calls()).find((c) => c.includes('NOTFOUND01')));
    expect(reported.slice(-2)).toEqual(['--code', '127']);
  });

  it('runs the agent without reporting when no CLI entry is given', async () => {
    const before = (await calls()).length;
    const result = await execa(process.execPath, [agentWrapperPath(), ...ids.slice(0, -1), 'NOCLI00001', '--', 'sh', '-c', 'exit 0'], { reject: false });
    expect(result.exitCode).toBe(0);
    // A report is started before the wrapper exits and carries the spawn id on its command line
    // (forked from the wrapper, then as `agent exited … --spawn`) until it has written its call:
    // once no process carries the id, every call there was is in the log.
    await waitFor('no process left with the spawn id on its command line', async () => (await commandLinesWith('NOCLI00001')).length === 0, { timeoutMs: 10_000 });
    expect((await calls()).length).toBe(before);
  });

  it('reads argv and env from a spec file, and removes the file', async () => {
    const spec = join(dir, 'spec.json');
    await writeFile(spec, JSON.stringify({ argv: ['sh', '-c', 'printf %s "$SPEC_VAR"'], env: { SPEC_VAR: 'from spec' } }));
    const result = await execa(process.execPath, [agentWrapperPath(), ...ids, '--spec', spec], { reject: false });
    expect(result.stdout).toBe('from spec');
    expect(await readdir(dir)).not.toContain('spec.json');
  });

  it('refuses to run without an agent command', async () => {
    const result = await execa(process.execPath, [agentWrapperPath(), ...ids], { reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/no agent command/);
  });
});
