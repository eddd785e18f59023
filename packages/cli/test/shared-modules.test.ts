/**
 * A repository with no node_modules at all (the sandbox lives in a temp directory): its config and
 * the local plugin file it imports get @orange/core, zod and the built-in plugins from the
 * running CLI, so the objects they build are the CLI's own (`instanceof` holds across them).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, type CliResult } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create();
});
afterAll(() => box?.cleanup());

function explain(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

const CONFIG = `import { defineConfig } from '@orange/core';
import { command } from '@orange/harness-command';
import { probe } from './plugins/probe.js';

export default defineConfig({ plugins: [command({ name: 'scripted', worker: ['true'] }), probe({ label: 'shared' })] });
`;

// Reports, through a refusal reason on stderr, whether each object it meets is the CLI's own.
const PROBE = `import { Orange, OrangeError, parsePluginOptions, type OrangePlugin } from '@orange/core';
import * as zod from 'zod';
import { z } from 'zod';
import { tmux } from '@orange/plugin-tmux';

const Options = z.object({ label: z.string() }).strict();

export function probe(options: z.input<typeof Options>): OrangePlugin {
  const parsed = parsePluginOptions('probe', Options, options);
  return {
    name: 'probe',
    apply(orange) {
      const facts = {
        label: parsed.label,
        orangeIsCoreOrange: orange instanceof Orange,
        // Nothing is installed here: zod resolves only because the CLI hands over its own.
        zodIsTheCli: zod.z === z && Options.safeParse({ label: 1 }).success === false,
        builtinTmuxName: tmux().name,
        errorIsCoreError: new OrangeError('E_CONFIG', 'x') instanceof Error,
      };
      throw new OrangeError('E_CONFIG', 'probe ' + JSON.stringify(facts));
    },
  };
}
`;

describe('imports a config shares with the CLI', () => {
  it('gives a config and its local plugin the CLI’s @orange/core, zod and plugins in a repository that installed none', async () => {
    const dir = join(box.repo, 'shared');
    await mkdir(join(dir, 'plugins'), { recursive: true });
    await writeFile(join(dir, 'orange.config.ts'), CONFIG);
    await writeFile(join(dir, 'plugins', 'probe.ts'), PROBE);
    const result = await box.orange(['workflow', 'show'], { cwd: dir });
    expect(result.code, explain(result)).toBe(1);
    const facts = JSON.parse(/probe (\{.*\})/.exec(result.stderr)?.[1] ?? 'null') as Record<string, unknown> | null;
    expect(facts, explain(result)).toEqual({
      label: 'shared',
      orangeIsCoreOrange: true,
      zodIsTheCli: true,
      builtinTmuxName: 'tmux',
      errorIsCoreError: true,
    });
  });

  it('gives a config the built-in pi, opencode and gemini harness plugins in a repository that installed none', async () => {
    const dir = join(box.repo, 'agents');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'orange.config.ts'),
      `import { defineConfig } from '@orange/core';
import { gemini } from '@orange/harness-gemini';
import { opencode } from '@orange/harness-opencode';
import { pi } from '@orange/harness-pi';

export default defineConfig({ plugins: [pi({ provider: 'anthropic' }), opencode({ agent: 'build' }), gemini({ model: 'gemini-2.5-pro' })], harness: 'opencode', reviewHarness: 'gemini' });
`,
    );
    const result = await box.orange(['workflow', 'show'], { cwd: dir });
    expect(result.code, explain(result)).toBe(0);
  });

  it('gives a config the notifiers the CLI carries, in a repository that installed none', async () => {
    const dir = join(box.repo, 'notifiers');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'orange.config.ts'),
      `import { defineConfig } from '@orange/core';
import { desktop } from '@orange/notifier-desktop';
import { slack } from '@orange/notifier-slack';
import { webhook } from '@orange/notifier-webhook';

export default defineConfig({
  plugins: [desktop({ platform: 'win32' }), slack({ url: 'http://127.0.0.1:9/slack' }), webhook({ url: 'http://127.0.0.1:9/hook', name: 'ops' })],
  notifications: { routes: { urgent: ['desktop', 'slack'], info: ['ops'] } },
});
`,
    );
    const result = await box.orange(['doctor', '--json'], { cwd: dir });
    const report = JSON.parse(result.stdout) as { plugins: { name: string; from: string }[] };
    expect(report.plugins.filter((p) => ['desktop', 'slack', 'ops'].includes(p.name)), explain(result)).toEqual([
      { name: 'desktop', from: 'built-in, options from orange.config.ts' },
      { name: 'slack', from: 'built-in, options from orange.config.ts' },
      { name: 'ops', from: 'built-in, options from orange.config.ts' },
    ]);
  });

  it('names the local plugin file, line and column of an import that is not installed', async () => {
    const dir = join(box.repo, 'missing');
    await mkdir(join(dir, 'plugins'), { recursive: true });
    await writeFile(join(dir, 'orange.config.ts'), "import { veto } from './plugins/veto.js';\nexport default { plugins: [veto()] };\n");
    await writeFile(join(dir, 'plugins', 'veto.ts'), "import { definePlugin } from '@orange/core';\nimport { send } from '@acme/pager';\n\nexport const veto = () => definePlugin({ name: 'veto', apply() { send(); } });\n");
    const result = await box.orange(['task', 'list'], { cwd: dir });
    expect(result, explain(result)).toEqual({
      code: 1,
      stdout: '',
      stderr: `orange: ${join(dir, 'orange.config.ts')}: Cannot find module '@acme/pager' imported from plugins/veto.ts:2:22 — install it in this repository (npm install @acme/pager)`,
    });
  });
});
