import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from './sandbox.js';

// Agents ask, people decide, with real tmux, worktrees and a bare origin: an agent's own attempts
// to finish, cancel, merge or re-aim its task are refused with the command a person uses; a team's
// veto stops a merge before git is touched; a pipeline task reaches origin/main through a person.

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const HOSTILE_AGENT = join(here, 'hostile-agent.mjs');
const PIPELINE_AGENT = join(here, 'pipeline-agent.mjs');
const plugin = (dir: string) => JSON.stringify(pathToFileURL(join(root, dir, 'dist/index.js')).href);

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

interface Attempt {
  argv: string[];
  status: number | null;
  stdout: string;
  stderr: string;
}

/** origin's branches and where they point: what a refused merge must leave as it was. */
const originRefs = (b: Sandbox) => b.git(b.origin, 'for-each-ref', '--format=%(refname) %(objectname)');

describe('an agent in its tmux window', () => {
  it('is refused its own done and cancelled, a cancel of another task, a merge and a branch that lives on origin, each naming what to use', async () => {
    box = await Sandbox.create();
    const file = join(box.dir, 'orange.config.mjs');
    const config = await readFile(file, 'utf8');
    await writeFile(file, config.replace('plugins: [', `plugins: [command({ name: 'hostile', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(HOSTILE_AGENT)}] }), `));
    // A branch that exists on origin only: the agent must not take it (merging deletes it there).
    await box.git(box.repo, 'push', '-q', 'origin', 'main:release');
    await box.git(box.repo, 'branch', '-q', '-D', 'release').catch(() => undefined);
    const other = await box.createTask(['other-work', 'somebody else’s task', '--no-spawn']);
    const id = await box.createTask(['hostile-work', 'add a file', '--harness', 'hostile', '--review-harness', 'scripted'], `hostile.other: ${other}\nhostile.branch: release\n`);
    const before = await originRefs(box);
    const release = await box.git(box.origin, 'rev-parse', 'release');

    const resultFile = join(box.paths.home, `hostile-${id}.json`);
    let text = '';
    await box
      .waitFor('the hostile agent to finish its attempts', async () => {
        text = await readFile(resultFile, 'utf8').catch(() => '');
        return text !== '';
      }, 60_000)
      .catch(async (error: Error) => {
        const history = (await box!.history(id)).map((e) => JSON.stringify(e)).join('\n');
        const screen = (await box!.tmux('capture-pane', '-p', '-t', `demo/${id}:worker`)).stdout;
        throw new Error(`${error.message}\nhistory:\n${history}\nworker window:\n${screen}\nlog:\n${(await readFile(box!.paths.logFile, 'utf8').catch(() => '')).slice(-3000)}`);
      });
    const { status, attempts } = JSON.parse(text) as { status: string; attempts: Attempt[] };
    const shown = `attempts:\n${text}\nagent log:\n${await box.agentLog(id)}`;
    expect(status, shown).toBe('reviewing');
    const [done, cancelled, cancelOther, merge, branch] = attempts as [Attempt, Attempt, Attempt, Attempt, Attempt];
    for (const attempt of attempts) {
      expect(attempt.status, shown).not.toBe(0);
      expect(attempt.stderr.trim().split('\n'), shown).toHaveLength(1);
    }
    expect(done.stderr).toContain(`done is a person's move`);
    expect(done.stderr).toContain(`orange task merge ${id}`);
    expect(cancelled.stderr).toContain(`orange task cancel ${id}`);
    expect(cancelOther.stderr).toMatch(/orange task cancel is a person's command/);
    expect(merge.stderr).toMatch(/orange task merge is a person's command/);
    expect(branch.stderr).toMatch(/release.*exists.*origin|origin.*release/);

    // Nothing changed: the task waits for a person, the other task is untouched, origin is as it was.
    expect((await box.task(id)).meta).toMatchObject({ status: 'reviewing', branch: 'hostile-work', attention: null });
    expect((await box.task(other)).meta.status).toBe('pending');
    expect(await originRefs(box)).toBe(before);
    // A person merges it.
    const merged = await box.orange(['task', 'merge', id, '--yes']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(await box.git(box.origin, 'log', '--format=%s', 'main')).toContain(`hostile work for task ${id}`);
    expect(await box.git(box.origin, 'rev-parse', 'release')).toBe(release);
  }, 90_000);
});

describe("a team's veto on done", () => {
  it('stops task merge before git is touched (origin a relative path), and lets it through once a person approved', async () => {
    box = await Sandbox.create({
      config: { imports: [`import { approval } from ${JSON.stringify(pathToFileURL(join(here, 'approval-plugin.mjs')).href)};`], plugins: ['approval()'] },
    });
    // origin as a relative path, as many clones have it: the merge pushes from the project's own checkout.
    await box.git(box.repo, 'remote', 'set-url', 'origin', '../origin.git');
    // The team keeps APPROVED out of git, so the worktree stays clean for its release.
    const exclude = join(box.repo, '.git', 'info', 'exclude');
    await writeFile(exclude, `${await readFile(exclude, 'utf8')}APPROVED\n`);
    const id = await box.createTask(['feature/approved', 'add a greeting']);
    const reviewing = await box.waitForStatus(id, 'reviewing', 60_000);
    const before = await originRefs(box);

    const refused = await box.orange(['task', 'merge', id, '--yes']);
    expect(refused.code, refused.stdout).not.toBe(0);
    expect(refused.stderr.trim()).toMatch(/^orange: reviewing → done refused: not approved: a person puts APPROVED in the worktree first/);
    expect(await originRefs(box)).toBe(before);
    expect((await box.task(id)).meta).toMatchObject({ status: 'reviewing', attention: null });
    expect((await box.history(id)).filter((e) => e.type === 'task.merged')).toEqual([]);

    await writeFile(join(reviewing.meta.workspace as string, 'APPROVED'), 'approved by a person\n');
    const merged = await box.orange(['task', 'merge', id, '--yes']);
    expect(merged.code, merged.stderr).toBe(0);
    expect((await box.task(id)).meta.status).toBe('done');
    expect(await box.git(box.origin, 'log', '--format=%s', 'main')).toContain(`implement the task for task ${id}`);
  }, 90_000);
});

describe('a completed pipeline task', () => {
  it('reaches origin/main through a person’s task merge, with its commits', async () => {
    box = await Sandbox.create();
    await writeFile(join(box.dir, 'plan.json'), JSON.stringify({ classify: [{ intent: 'bugfix', confidence: 0.9 }], fix: [{ commit: 'fix.txt' }] }));
    const scripted = {
      name: 'scripted',
      headless: [process.execPath, PIPELINE_AGENT, '{phase}', '{model}', '{prompt}'],
      tiers: ['haiku'],
      env: { PIPELINE_PLAN: join(box.dir, 'plan.json'), PIPELINE_CALLS: join(box.dir, 'calls.jsonl') },
    };
    await writeFile(
      join(box.dir, 'orange.config.mjs'),
      [
        `import { command } from ${plugin('plugins/harness-command')};`,
        `import { pipeline } from ${plugin('plugins/pipeline')};`,
        'export default {',
        "  harness: 'scripted',",
        "  workflow: 'pipeline',",
        `  plugins: [command(${JSON.stringify(scripted)}), pipeline(${JSON.stringify({ intents: { bugfix: { phases: ['fix'] } } })})],`,
        '};',
        '',
      ].join('\n'),
    );
    const id = await box.createTask(['pipeline-fix', 'fix the crash']);
    await box.waitForStatus(id, 'completed', 60_000);
    const before = await box.git(box.origin, 'rev-parse', 'main');
    // The move's actions (save_memory's commit among them) are over once the ledger says auto.advanced.
    await box.waitFor('completed to be settled', async () => (await box!.history(id)).some((e) => e.type === 'auto.advanced' && e.to === 'completed'));
    // Completed is not the end: it waits for a person, and the branch holds what is not merged yet:
    // the agent's work and the task's memory entry (docs/workflows.md, "Memory").
    expect(await box.git(box.repo, 'log', '--format=%s', `main..pipeline-fix`)).toBe(`orange: memory of task ${id} (bugfix, passed at haiku)\nfix for task ${id}`);
    const merged = await box.orange(['task', 'merge', id, '--yes']);
    expect(merged.code, `${merged.stderr}\n${(await box.history(id)).map((e) => JSON.stringify(e)).join('\n')}`).toBe(0);
    expect((await box.task(id)).meta.status).toBe('done');
    expect(await box.git(box.origin, 'rev-parse', 'main')).not.toBe(before);
    expect(await box.git(box.origin, 'log', '--format=%s', 'main')).toContain(`fix for task ${id}`);
    const again = await box.orange(['task', 'merge', id, '--yes']);
    expect(again.stderr.trim()).toBe(`orange: task ${id} is already done (merged); there is nothing left to merge`);
  }, 90_000);
});
