/**
 * The core's `merge` action through the scm slot (the GitHub plugin, on a real local bare origin):
 * a fully autonomous workflow merges and deletes the branch with no `orange task merge`.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, root } from './cli-sandbox.js';

const plugin = (dir: string) => JSON.stringify(pathToFileURL(join(root, dir, 'dist/index.js')).href);
const CONFIG = [
  `import { command } from ${plugin('plugins/harness-command')};`,
  'const autonomous = {',
  "  name: 'autonomous', initial: 'pending', start: 'working',",
  "  states: { pending: {}, working: { agent: 'worker' }, done: { terminal: true }, cancelled: { terminal: true } },",
  '  transitions: [',
  "    { from: 'pending', to: 'working', by: ['agent', 'person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },",
  "    { from: 'working', to: 'done', by: ['agent', 'person', 'orange'], gate: 'handoff', hooks: ['merge', 'kill_session', 'release_workspace', 'delete_remote_branch'] },",
  "    { from: 'pending', to: 'cancelled', by: ['agent', 'person', 'orange'] },",
  "    { from: 'working', to: 'cancelled', by: ['agent', 'person', 'orange'], hooks: ['kill_session', 'release_workspace'] },",
  '  ],',
  "  exit: { pending: { otherwise: 'mark' }, working: { advance: ['done'], otherwise: 'mark' } },",
  '  create: { pending: {} },',
  '  prompts: {},',
  '};',
  'export default {',
  "  harness: 'idle', workflow: autonomous,",
  "  plugins: [command({ name: 'idle', worker: ['sleep', '300'] })],",
  '};',
  '',
].join('\n');

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ config: CONFIG });
});
afterAll(() => box?.cleanup());

describe('the merge action', () => {
  it('merges the finished branch into origin before delete_remote_branch removes it, with no human step', async () => {
    const task = await box.createTask(['feature/autonomous', 'merge on its own'], { spawn: true });
    expect(task.status).toBe('working');
    const workspace = task.workspace as string;
    const subject = await box.commit(workspace, 'auto.md', 'work merged by the workflow');
    await box.git(workspace, 'push', '-q', 'origin', 'feature/autonomous');
    await box.writeSection(task.id, 'Handoff', 'DONE: auto.md');
    const done = await box.json<{ to: string; failedHooks: string[] }>(['task', 'update', '--status', 'done'], { cwd: workspace });
    expect(done).toMatchObject({ to: 'done', failedHooks: [] });
    expect(await box.git(box.origin, 'log', '--format=%s', 'main')).toContain(subject);
    expect(await box.git(box.origin, 'branch', '--list', 'feature/autonomous')).toBe('');
    const history = await box.history(task.id);
    const types = history.map((e) => e.type);
    expect(types.indexOf('task.merged')).toBeGreaterThan(types.indexOf('status.changed'));
    expect(history.find((e) => e.type === 'task.merged')).toMatchObject({ via: 'github', strategy: 'ff' });
  });

  it('keeps the branch on origin when the merge before it failed: both hooks fail, the task is flagged, no commit is lost', async () => {
    const task = await box.createTask(['feature/diverged', 'merge fails'], { spawn: true });
    const workspace = task.workspace as string;
    await box.commit(workspace, 'diverged.md', 'work that never reaches main');
    await box.git(workspace, 'push', '-q', 'origin', 'feature/diverged');
    const tip = await box.git(box.origin, 'rev-parse', 'feature/diverged');
    // Someone else moves main on: the branch cannot be fast-forwarded, so the merge action fails.
    await box.git(box.repo, 'pull', '-q', '--ff-only', 'origin', 'main');
    await box.commit(box.repo, 'elsewhere.md', 'someone else');
    await box.git(box.repo, 'push', '-q', 'origin', 'main');
    await box.writeSection(task.id, 'Handoff', 'DONE: diverged.md');
    const done = await box.orange(['task', 'update', '--status', 'done', '--json'], { cwd: workspace });
    const out = JSON.parse(done.stdout) as { to: string; failedHooks: string[] };
    expect(out, done.stdout + done.stderr).toMatchObject({ to: 'done', failedHooks: ['merge', 'delete_remote_branch'] });
    expect(await box.git(box.origin, 'rev-parse', 'feature/diverged')).toBe(tip);
    expect((await box.task(task.id)).meta.attention).toMatch(/merge, delete_remote_branch/);
    const refused = (await box.history(task.id)).find((e) => e.type === 'hook.failed' && e.hook === 'delete_remote_branch');
    expect(refused?.error).toMatch(/^not deleting origin\/feature\/diverged: its commits \(\w{7}\) are in neither origin\/main nor main/);
  });
});

