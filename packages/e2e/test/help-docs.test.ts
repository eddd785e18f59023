/**
 * docs/cli.md against the CLI's own `--help`: every command of the oclif manifest (hidden ones
 * aside) has a heading that names it, every flag its `--help` lists appears in that section, and
 * every flag the section shows for it — in a code block line that runs it (synopsis or example)
 * or in a flag table — is one its `--help` lists (a `-x, --name` pair with that letter).
 * `--json` is documented once for every command ("Every command accepts `--json`"), and
 * `-p, --project` once for the commands the sentence "`-p, --project NAME` is accepted by …" names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot as root } from '@orange/test-support';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { commandOf, fencedBlocks, planCommand, SHELL_LANGS, shellCommands } from './doc-blocks.js';
import { CLI } from './sandbox.js';

const manifest = JSON.parse(readFileSync(join(root, 'packages/cli/oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { hidden?: boolean; flags: Record<string, { hidden?: boolean }> }>;
};
const allIds = new Set(Object.keys(manifest.commands));
const visible = Object.keys(manifest.commands)
  .filter((id) => !manifest.commands[id]?.hidden)
  .sort();
const cliMd = readFileSync(join(root, 'docs/cli.md'), 'utf8');

/** Flags every command takes, documented once for all. */
const GLOBAL = new Set(['--json', '--help', '-h']);

interface Section {
  readonly heading: string;
  readonly line: number;
  /** Command ids the heading names in backticks: `task complete`, `task stuck` → task:complete, task:stuck. */
  readonly commands: readonly string[];
  /** Its lines, from the heading to the next heading of its level or above. */
  readonly body: string;
  readonly firstLine: number;
}

/** The sections of a page by heading, headings inside fenced code left out. */
function sections(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const headings: Array<{ level: number; text: string; index: number }> = [];
  let fence: string | null = null;
  lines.forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker))) fence = fence === null ? marker : null;
    else if (fence === null) {
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      if (heading) headings.push({ level: heading[1]?.length ?? 0, text: heading[2] ?? '', index });
    }
  });
  return headings.map((h, i) => {
    const next = headings.slice(i + 1).find((n) => n.level <= h.level);
    const names = [...h.text.matchAll(/`([^`]+)`/g)].map((m) => (m[1] ?? '').trim().replace(/\s+/g, ':'));
    return { heading: h.text, line: h.index + 1, commands: names.filter((n) => allIds.has(n)), body: lines.slice(h.index, next ? next.index : lines.length).join('\n'), firstLine: h.index + 1 };
  });
}

/** The flags `orange <command> --help` lists: `--name` (and `--no-name` for `--[no-]name`), and `-x` paired with its `--name`. */
async function helpFlags(id: string): Promise<{ long: Set<string>; negatable: Set<string>; chars: Map<string, string>; text: string }> {
  const result = await execa(process.execPath, [CLI, ...id.split(':'), '--help'], { reject: false, env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 });
  const text = String(result.stdout);
  if (result.exitCode !== 0) throw new Error(`orange ${id.replace(/:/g, ' ')} --help failed (exit ${result.exitCode}): ${String(result.stderr)}`);
  const flags = /\nFLAGS\n([\s\S]*?)(?:\n[A-Z][A-Z ]+\n|$)/.exec(text)?.[1] ?? '';
  const long = new Set<string>();
  const negatable = new Set<string>();
  const chars = new Map<string, string>();
  for (const match of flags.matchAll(/^\s+(?:-([A-Za-z]), )?--(\[no-\])?([a-z][\w-]*)/gm)) {
    const name = `--${match[3] ?? ''}`;
    long.add(name);
    if (match[2]) negatable.add(name);
    if (match[1]) chars.set(`-${match[1]}`, name);
  }
  return { long, negatable, chars, text };
}

interface ShownFlag {
  readonly flag: string;
  /** The long name it is paired with (`-p, --project`), if any. */
  readonly pairedWith: string | null;
  readonly line: number;
  readonly where: string;
}

const FLAG = /(?<![\w-])(--\[no-\][a-z][\w-]*|--[a-z][\w-]*|-[A-Za-z])(?:,\s*(--[a-z][\w-]*))?(?![\w-])/g;

function flagsIn(text: string, line: number, where: string): ShownFlag[] {
  // Quoted values are the command's data, not its flags: --notes "rename the flag to --dry-run".
  const bare = text.replace(/"[^"]*"|'[^']*'/g, '""');
  return [...bare.matchAll(FLAG)].map((m) => ({ flag: m[1] ?? '', pairedWith: m[2] ?? null, line, where }));
}

/**
 * The flags a section shows for `id`: on the code lines that run it (`orange task create …`, its
 * synopsis and continuation lines, `cat x | orange task create …`), and in the first column of a
 * flag table. Prose is left out: it mentions other commands' flags.
 */
function shownFlags(section: Section, id: string): ShownFlag[] {
  const shown: ShownFlag[] = [];
  const words = id.split(':');
  for (const block of fencedBlocks(section.body)) {
    const at = section.firstLine + block.line;
    if (SHELL_LANGS.has(block.lang)) {
      for (const command of shellCommands(block)) {
        for (const plan of planCommand(command)) {
          if (plan.kind !== 'orange' || commandOf(plan.args, allIds).id !== id) continue;
          const rest = commandOf(plan.args, allIds).rest;
          for (const word of rest) if (/^-/.test(word)) shown.push(...flagsIn(word.replace(/=.*$/s, ''), section.firstLine + command.line - 1, 'an example'));
        }
      }
      continue;
    }
    // A synopsis: `orange task create [BRANCH] … [-p NAME]`, its continuation lines indented.
    let inCommand = false;
    block.lines.forEach((text, i) => {
      const starts = new RegExp(`^\\s*(?:\\$ )?orange ${words.join(' ')}(?:\\s|$)`).exec(text);
      if (starts) inCommand = true;
      else if (!/^\s+\S/.test(text) || /^\s*(?:\$ )?orange\b/.test(text)) inCommand = false;
      if (!inCommand) return;
      const after = starts ? text.slice(starts[0].length) : text;
      // `orange task complete [ID] [-p NAME]      # = task update --status agent-review`: the comment names another command.
      shown.push(...flagsIn(after.replace(/\s#\s.*$/, ''), at + i, 'the synopsis'));
    });
  }
  // Flag tables: | Flag | Default | Meaning |.
  const lines = section.body.split('\n');
  let inTable = false;
  lines.forEach((text, i) => {
    if (/^\|\s*Flag\s*\|/.test(text)) inTable = true;
    else if (!text.startsWith('|')) inTable = false;
    else if (inTable && !/^\|\s*-{3}/.test(text)) {
      const cell = text.split('|')[1] ?? '';
      for (const code of cell.matchAll(/`([^`]+)`/g)) shown.push(...flagsIn(code[1] ?? '', section.firstLine + i, 'the flag table'));
    }
  });
  return shown;
}

const sectionsOfCli = sections(cliMd);

/** The commands the overview's one sentence documents `-p, --project NAME` for: "every `task` command, … `workspace init`, …". */
function projectSentenceCovers(): { readonly line: number; readonly covers: (id: string) => boolean; readonly names: readonly string[] } {
  const at = cliMd.indexOf('`-p, --project NAME` is accepted by');
  // To the end of the clause: "…; `project update` and `project remove` take the name as an argument".
  const sentence = at === -1 ? '' : (/^[^.;]*/.exec(cliMd.slice(at))?.[0] ?? '');
  const names = [...sentence.matchAll(/`([a-z][a-z -]*)`/g)].map((m) => (m[1] ?? '').trim());
  const topics = names.filter((n) => new RegExp(`every \`${n}\` command`).test(sentence));
  const ids = names.filter((n) => !topics.includes(n)).map((n) => n.replace(/\s+/g, ':'));
  return {
    line: cliMd.slice(0, Math.max(at, 0)).split('\n').length,
    names: ids,
    covers: (id) => ids.includes(id) || topics.some((t) => id.startsWith(`${t}:`)),
  };
}
const projectSentence = projectSentenceCovers();

describe('docs/cli.md documents every command and flag of the CLI, and no other', () => {
  it('names a command of the CLI in every heading that looks like one', () => {
    const unknown = sectionsOfCli
      .flatMap((s) => [...s.heading.matchAll(/`([^`]+)`/g)].map((m) => ({ name: (m[1] ?? '').trim(), line: s.line })))
      .filter(({ name }) => /^[a-z][a-z-]*( [a-z][a-z-]*)*$/.test(name) && name !== 'orange' && !allIds.has(name.replace(/\s+/g, ':')));
    expect(unknown.map(({ name, line }) => `docs/cli.md:${line}: heading names \`${name}\`, which is no command of the CLI`)).toEqual([]);
  });

  it.each(visible)('orange %s', async (id) => {
    const name = id.replace(/:/g, ' ');
    const section = sectionsOfCli.find((s) => s.commands.includes(id));
    expect(section, `docs/cli.md has no heading naming \`${name}\` (e.g. ### \`${name}\`)`).toBeDefined();
    if (!section) return;
    const help = await helpFlags(id);
    const problems: string[] = [];
    // Forward: every flag --help lists appears in the section.
    for (const flag of help.long) {
      if (GLOBAL.has(flag)) continue;
      if (flag === '--project' && projectSentence.covers(id)) continue;
      const bare = flag.slice(2);
      const mentioned = new RegExp(`(?<![\\w-])--(?:\\[no-\\]|no-)?${bare}(?![\\w-])`).test(section.body);
      if (!mentioned) problems.push(`orange ${name} --help lists ${help.negatable.has(flag) ? `--[no-]${bare}` : flag}, which its section (docs/cli.md:${section.line}) does not mention`);
    }
    // Reverse: every flag the section shows for this command is one --help lists.
    for (const shown of shownFlags(section, id)) {
      const { flag, pairedWith, line, where } = shown;
      const where_ = `docs/cli.md:${line} (${where})`;
      if (GLOBAL.has(flag)) continue;
      if (/^-[A-Za-z]$/.test(flag)) {
        const long = help.chars.get(flag);
        if (!long) problems.push(`${where_} shows ${flag} for orange ${name}, whose --help has no ${flag}`);
        else if (pairedWith && pairedWith !== long) problems.push(`${where_} shows ${flag}, ${pairedWith} for orange ${name}; its --help pairs ${flag} with ${long}`);
        continue;
      }
      const negated = /^--\[no-\](.*)$/.exec(flag) ?? /^--no-(.*)$/.exec(flag);
      if (negated && help.negatable.has(`--${negated[1] ?? ''}`)) continue;
      if (negated && !help.long.has(flag)) {
        problems.push(`${where_} shows ${flag} for orange ${name}, whose --help has no --[no-]${negated[1] ?? ''}`);
        continue;
      }
      if (!help.long.has(flag)) problems.push(`${where_} shows ${flag} for orange ${name}, whose --help has no such flag`);
    }
    expect(problems).toEqual([]);
  });

  it('takes -p, --project only for commands that have it, where the overview says every command takes it', () => {
    const wrong = projectSentence.names.filter((id) => !('project' in (manifest.commands[id]?.flags ?? {})));
    expect(projectSentence.names.length, 'the sentence "`-p, --project NAME` is accepted by …" is gone from docs/cli.md').toBeGreaterThan(0);
    expect(wrong.map((id) => `docs/cli.md:${projectSentence.line}: says orange ${id.replace(/:/g, ' ')} takes --project; its --help has none`)).toEqual([]);
    for (const id of visible.filter((i) => i.startsWith('task:'))) expect(manifest.commands[id]?.flags, id).toHaveProperty('project');
  });

  it('finds the flags a section shows in its synopsis, examples and flag table', () => {
    const create = sectionsOfCli.find((s) => s.commands.includes('task:create'));
    const shown = new Set(shownFlags(create as Section, 'task:create').map((f) => (f.pairedWith ? `${f.flag}, ${f.pairedWith}` : f.flag)));
    // The synopsis, an example, the table.
    for (const flag of ['--no-spawn', '--context', '-p, --project', '--[no-]spawn', '--issue']) expect(shown).toContain(flag);
    // The quoted text of an example is not a flag.
    const changes = sectionsOfCli.find((s) => s.commands.includes('task:request-changes'));
    expect(shownFlags(changes as Section, 'task:request-changes').map((f) => f.flag)).not.toContain('--dry-run');
  });

  it('reads --help flags as the manifest has them', async () => {
    // The manifest is what --help renders; a flag here and not there would mean the parsing above is off.
    const help = await helpFlags('task:create');
    const manifestFlags = Object.entries(manifest.commands['task:create']?.flags ?? {})
      .filter(([, f]) => !f.hidden)
      .map(([n]) => `--${n}`)
      .sort();
    expect([...help.long].sort()).toEqual(manifestFlags);
    expect(help.chars.get('-p')).toBe('--project');
    expect(help.negatable.has('--spawn')).toBe(true);
  });
});
