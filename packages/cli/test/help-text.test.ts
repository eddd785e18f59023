import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, root } from './cli-sandbox.js';

interface ManifestCommand {
  readonly summary?: string;
  readonly description?: string;
  readonly flags?: Record<string, { readonly description?: string }>;
  readonly args?: Record<string, { readonly description?: string }>;
}

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ project: null });
});
afterAll(() => box?.cleanup());

/** The indented lines under `heading` in a help page, up to the next heading. */
function section(help: string, heading: string): string[] {
  const lines = help.split('\n');
  const start = lines.indexOf(heading);
  expect(start, `no ${heading} in:\n${help}`).toBeGreaterThan(-1);
  const end = lines.findIndex((line, i) => i > start && /^[A-Z]/.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

/** Lines ended before the width although the next line's first word would have fit: a break mid-sentence. */
function brokenEarly(lines: readonly string[], width: number): string[] {
  return lines.filter((line, i) => {
    const next = lines[i + 1]?.trim() ?? '';
    return line.trim() !== '' && next !== '' && line.length + 1 + (next.split(' ')[0]?.length ?? 0) <= width;
  });
}

describe('help text', () => {
  it('writes every description as paragraphs: no line break inside one, so oclif wraps it at the terminal width', async () => {
    const manifest = JSON.parse(await readFile(join(root, 'packages/cli/oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> };
    const broken: string[] = [];
    for (const [id, command] of Object.entries(manifest.commands)) {
      const texts: Array<[string, string | undefined]> = [
        ['summary', command.summary],
        ['description', command.description],
        ...Object.entries(command.flags ?? {}).map(([name, flag]): [string, string | undefined] => [`--${name}`, flag.description]),
        ...Object.entries(command.args ?? {}).map(([name, arg]): [string, string | undefined] => [name, arg.description]),
      ];
      for (const [what, text] of texts) if (text !== undefined && /[^\n]\n(?!\n)/.test(text)) broken.push(`${id} ${what}`);
    }
    expect(broken).toEqual([]);
  });

  it.each([80, 200])('wraps task create --help and dash --help only at the width (%i columns)', async (width) => {
    for (const command of [['task', 'create'], ['dash'], ['task', 'merge']]) {
      const help = await box.orange([...command, '--help'], { env: { OCLIF_COLUMNS: String(width) } });
      expect(help.code).toBe(0);
      const description = section(help.stdout, 'DESCRIPTION');
      expect(description.every((line) => line.length <= width)).toBe(true);
      expect(brokenEarly(description, width), help.stdout).toEqual([]);
    }
  });
});
