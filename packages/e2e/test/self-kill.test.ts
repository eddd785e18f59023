import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listProcesses } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from './sandbox.js';

const SELF_REVIEWING_AGENT = join(dirname(fileURLToPath(import.meta.url)), 'self-reviewing-agent.mjs');

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

/** Adds a `self-review` harness (see self-reviewing-agent.mjs) beside the sandbox's scripted one. */
async function addSelfReviewHarness(b: Sandbox): Promise<void> {
  const file = join(b.dir, 'orange.config.mjs');
  const config = await readFile(file, 'utf8');
  const harness = `command({ name: 'self-review', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(SELF_REVIEWING_AGENT)}] })`;
  await writeFile(file, config.replace('plugins: [', `plugins: [${harness}, `));
}

describe('an agent whose own command ends its window', () => {
  it('lets the reviewer’s own `orange task update --status reviewing` finish and exit 0, then its window goes', async () => {
    box = await Sandbox.create();
    await addSelfReviewHarness(box);
    await box.git(box.repo, 'checkout', '-q', '-b', 'feature/self-review');
    await box.git(box.repo, 'commit', '-q', '--allow-empty', '-m', 'work to review');
    await box.git(box.repo, 'push', '-q', 'origin', 'feature/self-review');
    await box.git(box.repo, 'checkout', '-q', 'main');
    const id = await box.createTask(['feature/self-review', 'review it', '--status', 'agent-review', '--review-harness', 'self-review']);
    const session = `demo/${id}`;

    const resultFile = join(box.paths.home, `self-review-${id}.json`);
    let text = '';
    await box.waitFor('the reviewer’s own orange call to end', async () => {
      text = await readFile(resultFile, 'utf8').catch(() => '');
      return text !== '';
    });
    const call = JSON.parse(text) as { pids: number[]; status: number | null; signal: string | null; stdout: string; stderr: string };
    const shown = `orange task update printed:\n${text}\nlog:\n${await readFile(box.paths.logFile, 'utf8').catch(() => '')}`;
    expect(call.status, shown).toBe(0);
    expect(call.signal, shown).toBeNull();
    expect(call.stdout, shown).toBe(`task ${id}: agent-review → reviewing\n`);
    expect(call.stderr, shown).not.toMatch(/Assertion/);
    expect(call.stderr, shown).toBe('');

    await box.waitFor('the reviewer window to be killed', async () => !(await box!.windows()).some((w) => w.startsWith(`${session}:review-`)), 10_000);
    const alive = async () => (await listProcesses()).some((p) => call.pids.includes(p.pid) && !p.zombie);
    await box.waitFor('the reviewer agent and its wrapper to be gone', async () => !(await alive()), 10_000);
    expect((await box.task(id)).meta.status).toBe('reviewing');
    expect((await box.history(id)).filter((e) => e.type === 'hook.failed')).toEqual([]);
  });
});
