import { afterEach, describe, expect, it } from 'vitest';
import { pipelineCalls, pipelineSandbox, type PipelinePlan } from './pipeline-sandbox.js';
import type { Sandbox } from './sandbox.js';

// The project's memory end to end: real tmux, worktrees, headless runs of the scripted agent
// (pipeline-agent.mjs), real commits and merges. A completed task commits its entry on its branch;
// once a person merged it, the next tasks' prompts carry it, and after three tasks of one intent
// that needed sonnet, the fourth starts at sonnet.

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

function memoryBox(plan: PipelinePlan): Promise<Sandbox> {
  return pipelineSandbox(plan, { settings: { intents: { bugfix: { phases: ['reproduce', 'fix'] } }, attempts: 2, breaker: 3, verify: [['git', 'status', '--short']] } });
}

const calls = pipelineCalls;

/** Waits for `status` and for its move's actions to have run (the ledger's auto.advanced comes after them). */
async function settled(b: Sandbox, id: string, status: string): Promise<void> {
  await b.waitForStatus(id, status, 60_000);
  await b.waitFor(`${status} to be settled`, async () => (await b.history(id)).some((e) => e.type === 'auto.advanced' && e.to === status), 10_000);
}

describe('memory, end to end', () => {
  it("commits each completed task's entry on its branch; merged, it reaches the next tasks' prompts, and the fourth task of an intent that kept needing sonnet starts there", async () => {
    const escalating = (n: number) => [{ ok: false }, { ok: false }, { commit: `reproduce-${n}.txt` }];
    box = await memoryBox({
      classify: Array.from({ length: 4 }, () => ({ intent: 'bugfix', confidence: 0.9, cost: 0.01 })),
      reproduce: [...escalating(1), ...escalating(2), ...escalating(3), { commit: 'reproduce-4.txt' }],
      fix: [1, 2, 3, 4].map((n) => ({ commit: `fix-${n}.txt` })),
    });
    const ids: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const id = await box.createTask([`fix/crash-${n}`, `Fix parser crash ${n}`]);
      ids.push(id);
      await settled(box, id, 'completed');
      const saved = (await box.history(id)).find((e) => e.type === 'pipeline.memory');
      expect(saved, JSON.stringify(await box.history(id))).toMatchObject({ file: expect.stringMatching(new RegExp(`^\\.orange/memory/.*-${id}\\.json$`)) });
      // The entry is the branch's last commit, and only that file.
      expect(await box.git(box.repo, 'log', '-1', '--format=%s', `fix/crash-${n}`)).toBe(`orange: memory of task ${id} (bugfix, passed at sonnet)`);
      expect(await box.git(box.repo, 'show', '--name-only', '--format=', `fix/crash-${n}`)).toBe(saved?.file);
      const merged = await box.orange(['task', 'merge', id, '--yes']);
      expect(merged.code, merged.stderr).toBe(0);
      await box.waitForStatus(id, 'done', 30_000);
    }
    const all = await calls(box);
    const classify = all.filter((c) => c.phase === 'classify');
    expect(classify[0]?.prompt).not.toContain('What earlier tasks');
    expect(classify[1]?.prompt).toContain('- bugfix task "Fix parser crash 1"');
    expect(classify[3]?.prompt).toContain('- bugfix task "Fix parser crash 3"');
    // Tasks 1-3 paid for two failed haiku runs each; task 4 started at sonnet.
    expect(all.filter((c) => c.phase === 'reproduce').map((c) => c.model)).toEqual([...Array(3).fill(['haiku', 'haiku', 'sonnet']).flat(), 'sonnet']);
    const routed = (await box.history(ids[3]!)).find((e) => e.type === 'pipeline.memory.routed');
    expect(routed).toMatchObject({ intent: 'bugfix', tier: 'sonnet', from: 'haiku', tasks: ids.slice(0, 3) });
    expect((await box.task(ids[3]!)).meta.cost_total_usd).toBeCloseTo(0.03);

    // The person's checkout has the memory once it pulls the merges.
    await box.git(box.repo, 'pull', '-q', '--ff-only');
    const list = await box.orange(['memory', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const entries = (JSON.parse(list.stdout) as { entries: Array<{ task: string; tier: string; start_tier: string; attempts: number }> }).entries;
    expect(entries.map((e) => [e.task, e.start_tier, e.tier, e.attempts])).toEqual([
      [ids[0], 'haiku', 'sonnet', 4],
      [ids[1], 'haiku', 'sonnet', 4],
      [ids[2], 'haiku', 'sonnet', 4],
      [ids[3], 'sonnet', 'sonnet', 2],
    ]);
  }, 240_000);
});
