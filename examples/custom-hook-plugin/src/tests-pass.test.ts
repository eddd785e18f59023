import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { minimal } from '../../workflows/minimal.js';
import { sandbox, type Sandbox } from '../test/sandbox.js';
import { runCommand } from './run-command.js';
import { testsPass } from './tests-pass.js';

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

// The "tests" pass while the worktree holds a file named PASS.
const node = process.execPath;
const checkTests = [node, '-e', "process.exit(require('node:fs').existsSync('PASS') ? 0 : 1)"];
const format = [node, '-e', "require('node:fs').writeFileSync('formatted', process.env.ORANGE_STATUS)"];

// The minimal workflow, with the tests gate added to working → reviewing and a formatter run before review.
const tested = {
  ...minimal,
  name: 'tested',
  transitions: minimal.transitions.map((t) =>
    t.from === 'working' && t.to === 'reviewing' ? { ...t, gate: 'tests-pass', hooks: ['format'] } : t,
  ),
};

async function startTask(b: Sandbox) {
  await mkdir(b.workspace, { recursive: true });
  const { task } = await b.orange.engine.createTask({ project: 'demo', summary: 'fix the parser' });
  return { project: 'demo', id: task.meta.id };
}

describe('testsPass gate and runCommand action in a custom workflow', () => {
  it('refuses working → reviewing while the tests fail, naming the command, and changes nothing', async () => {
    box = await sandbox({
      workflow: 'tested',
      workflows: [tested],
      plugins: [testsPass({ command: checkTests }), runCommand({ action: 'format', command: format })],
    });
    const ref = await startTask(box);
    expect((await box.orange.store.read('demo', ref.id)).meta.status).toBe('working');
    await expect(box.orange.engine.transition(ref, 'reviewing')).rejects.toMatchObject({
      code: 'E_GATE_FAILED',
      message: expect.stringMatching(/^working → reviewing refused: `.* -e .*` exited with 1$/),
    });
    expect((await box.orange.store.read('demo', ref.id)).meta.status).toBe('working');
  });

  it('lets the task through once the tests pass, then runs the action in the worktree', async () => {
    box = await sandbox({
      workflow: 'tested',
      workflows: [tested],
      plugins: [testsPass({ command: checkTests }), runCommand({ action: 'format', command: format })],
    });
    const ref = await startTask(box);
    await writeFile(join(box.workspace, 'PASS'), '');
    const result = await box.orange.engine.transition(ref, 'reviewing');
    expect(result.task.meta.status).toBe('reviewing');
    expect(result.failedHooks).toEqual([]);
    expect(await readFile(join(box.workspace, 'formatted'), 'utf8')).toBe('reviewing');
    const history = await box.orange.store.history('demo', ref.id);
    expect(history.map((e) => e.type)).toContain('command.ran');
  });

  it('refuses to load a workflow naming an action no plugin provides', async () => {
    await expect(sandbox({ workflow: 'tested', workflows: [tested], plugins: [testsPass({ command: checkTests })] })).rejects.toMatchObject({
      code: 'E_WORKFLOW_INVALID',
      message: expect.stringContaining('no plugin provides hook "format"'),
    });
  });

  it('refuses a command given as a string instead of an argument array', () => {
    expect(() => testsPass({ command: 'npm test' as never })).toThrow(/plugin tests-pass: option "command"/);
  });
});
