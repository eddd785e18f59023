import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create();
});
afterAll(() => box?.cleanup());

describe('orange dash without a terminal', () => {
  it('refuses in one line with exit 2 and points to task list, for dash and its alias', async () => {
    for (const command of ['dash', 'dashboard']) {
      const result = await box.orange([command]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe('orange: the dashboard needs a terminal (standard input or output is not one); for a listing use: orange task list');
    }
    const json = await box.jsonError(['dash']);
    expect(json).toMatchObject({ code: 'E_USAGE', exit: 2 });
  });

  it('plain orange without a terminal prints the help, as before', async () => {
    const result = await box.orange([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('USAGE');
    expect(result.stdout).toContain('dash');
  });

  it("refuses --all with --project in one line of Orange's, not oclif's, exit 2", async () => {
    for (const args of [['dash', '--all', '--project', 'x'], ['dash', '-p', 'x', '-a']]) {
      const result = await box.orange(args);
      expect(result).toMatchObject({ code: 2, stdout: '', stderr: 'orange: --all and --project cannot be used together; pass one of them' });
    }
    expect(await box.jsonError(['dash', '-a', '-p', 'x'])).toEqual({ error: '--all and --project cannot be used together; pass one of them', code: 'E_USAGE', exit: 2 });
  });
});
