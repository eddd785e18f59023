import { describe, expect, it } from 'vitest';
import { commandOf, fencedBlocks, flagsUsed, isSampleId, moduleInfo, planCommand, producedInput, shellCommands, type FencedBlock } from './doc-blocks.js';

const page = (...lines: string[]) => lines.join('\n');
const sh = (...lines: string[]): FencedBlock => ({ lang: 'sh', line: 10, lines, mark: null });

describe('fencedBlocks', () => {
  it('finds each fence with its language, line and body, an indented one in a list too', () => {
    const blocks = fencedBlocks(page('# Title', '', '```sh', 'orange task list', '```', '', '- item', '  ```ts', '  const a = 1;', '  ```', '', '```', 'plain', '```'));
    expect(blocks).toEqual([
      { lang: 'sh', line: 3, lines: ['orange task list'], mark: null },
      { lang: 'ts', line: 8, lines: ['const a = 1;'], mark: null },
      { lang: '', line: 12, lines: ['plain'], mark: null },
    ]);
  });

  it('keeps a shorter fence inside a longer one as text', () => {
    const [block] = fencedBlocks(page('````md', '```sh', 'orange x', '```', '````'));
    expect(block).toMatchObject({ lang: 'md', lines: ['```sh', 'orange x', '```'] });
  });

  it('reads the mark on the line before a fence', () => {
    const blocks = fencedBlocks(
      page('<!-- docs-test: skip (needs GitHub) -->', '```sh', 'orange task create-pr ID', '```', '<!-- docs-test: may-refuse -->', '', '```sh', 'orange task merge ID', '```'),
    );
    expect(blocks.map((b) => b.mark)).toEqual([
      { kind: 'skip', reason: 'needs GitHub' },
      { kind: 'may-refuse', reason: null },
    ]);
  });

  it('refuses a mark it cannot read, or one not followed by a block', () => {
    expect(() => fencedBlocks(page('<!-- docs-test: skipp -->', '```sh', '```'))).toThrow(/line 1: unknown docs-test mark "skipp"/);
    expect(() => fencedBlocks(page('<!-- docs-test: skip -->', '```sh', '```'))).toThrow(/unknown docs-test mark/);
    expect(() => fencedBlocks(page('<!-- docs-test: may-refuse -->', 'Some text.', '```sh', '```'))).toThrow(/line 1: a docs-test mark not followed by a code block/);
  });
});

describe('shellCommands', () => {
  it('splits words on quotes and drops comments, keeping the line of each command', () => {
    const commands = shellCommands(sh('orange task create feature/login "Add a login form"   # worktree + agent', '', "orange task list -s 'working'"));
    expect(commands.map((c) => [c.line, c.segments[0]?.words])).toEqual([
      [11, ['orange', 'task', 'create', 'feature/login', 'Add a login form']],
      [13, ['orange', 'task', 'list', '-s', 'working']],
    ]);
    expect(commands[0]?.text).toBe('orange task create feature/login "Add a login form"   # worktree + agent');
  });

  it('keeps a newline inside quotes in its word, and joins continued lines', () => {
    const [quoted, continued] = shellCommands(sh('orange task section set Plan --text "APPROACH: split', 'TOUCHING: parser.ts"   # here', 'orange task list \\', '  --all'));
    expect(quoted?.segments[0]?.words.at(-1)).toBe('APPROACH: split\nTOUCHING: parser.ts');
    expect(continued).toMatchObject({ line: 13, segments: [{ words: ['orange', 'task', 'list', '--all'] }] });
  });

  it('separates pipes and lists, with the environment assignments of each segment', () => {
    const [command] = shellCommands(sh("ORANGE_DEBUG=1 printf 'DONE: x\\n' | orange task section set Handoff - && git status"));
    expect(command?.segments).toEqual([
      { env: { ORANGE_DEBUG: '1' }, words: ['printf', 'DONE: x\\n'], redirects: [], joinedBy: null },
      { env: {}, words: ['orange', 'task', 'section', 'set', 'Handoff', '-'], redirects: [], joinedBy: '|' },
      { env: {}, words: ['git', 'status'], redirects: [], joinedBy: '&&' },
    ]);
  });

  it('reads redirections, and keeps <id> a placeholder word', () => {
    const [append, placeholder] = shellCommands(sh('orange completion bash >> ~/.bashrc 2>/dev/null', 'orange task attach <id> <spec.md'));
    expect(append?.segments[0]).toMatchObject({ words: ['orange', 'completion', 'bash'], redirects: [{ op: '>>', target: '~/.bashrc' }, { op: '>', target: '/dev/null' }] });
    expect(placeholder?.segments[0]).toMatchObject({ words: ['orange', 'task', 'attach', '<id>'], redirects: [{ op: '<', target: 'spec.md' }] });
  });

  it('reads only the prompt lines of a console block', () => {
    const commands = shellCommands({ lang: 'console', line: 1, lines: ['$ orange task cancel ID --yes', 'task ID: verifying → stopped'], mark: null });
    expect(commands.map((c) => c.segments[0]?.words)).toEqual([['orange', 'task', 'cancel', 'ID', '--yes']]);
  });

  it('leaves a comment-only line and a # inside a word alone', () => {
    const commands = shellCommands(sh('# a comment', 'orange log --grep a#b   # find it'));
    expect(commands.map((c) => c.segments[0]?.words)).toEqual([['orange', 'log', '--grep', 'a#b']]);
  });
});

describe('planCommand', () => {
  const plan = (line: string) => {
    const [command] = shellCommands(sh(line));
    return planCommand(command!);
  };

  it('runs an orange command, fed by cat, printf or echo and read by less', () => {
    expect(plan('cat spec.md | orange task create fix/dates "Fix it" --context -')).toEqual([{
      kind: 'orange',
      args: ['task', 'create', 'fix/dates', 'Fix it', '--context', '-'],
      env: {},
      input: ['cat', 'spec.md'],
      readers: [],
    }]);
    expect(plan('ORANGE_DEBUG=1 orange task output ID --raw | less -R')).toMatchObject([{ kind: 'orange', env: { ORANGE_DEBUG: '1' }, readers: ['less'] }]);
    expect(plan('orange completion zsh > ~/.zfunc/_orange')).toMatchObject([{ kind: 'orange', args: ['completion', 'zsh'], readers: ['> ~/.zfunc/_orange'] }]);
    expect(plan('orange task create x "y" --context - < spec.md')).toMatchObject([{ kind: 'orange', input: ['cat', 'spec.md'] }]);
  });

  it('runs each command of an && list, and follows cd', () => {
    expect(plan('orange task cancel ID --yes && orange task delete ID --yes').map((p) => p.kind === 'orange' && p.args[1])).toEqual(['cancel', 'delete']);
    expect(plan('cd ~/src/app; orange init')).toEqual([{ kind: 'cd', dir: '~/src/app' }, expect.objectContaining({ kind: 'orange', args: ['init'] })]);
  });

  it('leaves a line with another program unrun, all of it', () => {
    expect(plan('npm ci && npm run demo')).toEqual([{ kind: 'other', program: 'npm' }]);
    expect(plan('git branch -m x && orange task update --branch')).toEqual([{ kind: 'other', program: 'git' }]);
    expect(plan('orange task list && tmux ls')).toEqual([{ kind: 'other', program: 'tmux' }]);
    expect(plan('orange task list | sort')).toEqual([{ kind: 'other', program: 'sort' }]);
    expect(plan('orange task spawn ID || orange task respawn ID')).toEqual([{ kind: 'other', program: 'orange (after ||)' }]);
  });
});

describe('isSampleId', () => {
  it("knows the docs' sample ids and placeholders, not a branch or a word", () => {
    for (const id of ['V1StGXR8Z5jdHi6BmyT4a', 'Uakgb_J5m9g-0JDMbcJqL', 'ID', '<id>']) expect(isSampleId(id)).toBe(true);
    for (const word of ['orange-tasks/abcdefgh', 'feature/login-form', 'abcdefghijklmnopqrstu', 'id']) expect(isSampleId(word)).toBe(false);
  });
});

describe('producedInput', () => {
  it('emulates echo, printf and cat', () => {
    expect(producedInput(['echo', 'a', 'b'], () => '')).toBe('a b\n');
    expect(producedInput(['printf', 'DONE: %s\\n', 'x'], () => '')).toBe('DONE: x\n');
    expect(producedInput(['cat', 'spec.md'], (name) => `<${name}>`)).toBe('<spec.md>');
  });
});

describe('commandOf and flagsUsed', () => {
  const ids = new Set(['task:create', 'task:section:set', 'dash', 'web']);
  it('finds the longest command id and the words after it', () => {
    expect(commandOf(['task', 'section', 'set', 'Plan', '--text', 'x'], ids)).toEqual({ id: 'task:section:set', rest: ['Plan', '--text', 'x'] });
    expect(commandOf(['--all'], ids)).toEqual({ id: null, rest: ['--all'] });
  });

  it('lists long flags and each letter of short ones', () => {
    expect(flagsUsed(['x', '--no-spawn', '--status=working', '-ay', '-', '--', '--not-a-flag'])).toEqual(['--no-spawn', '--status', '-a', '-y']);
  });
});

describe('moduleInfo', () => {
  const ts = (...lines: string[]): FencedBlock => ({ lang: 'ts', line: 1, lines, mark: null });

  it('knows a config by its export default or its first-line file name', () => {
    const config = moduleInfo(
      ts('// ~/src/web/orange.config.ts — the web project', "import { defineConfig } from '@orange/core';", "import { minimal } from './workflows/minimal.js';", 'export default defineConfig({});'),
    );
    expect(config).toEqual({ isConfig: true, path: 'orange.config.ts', exports: [], localImports: [{ from: './workflows/minimal.js', names: ['minimal'] }] });
  });

  it('reads what a module exports and the file it says it is', () => {
    const plugin = moduleInfo(ts('// plugins/transition-log.ts', 'export type TransitionLogOptions = {};', 'export function transitionLog() {}', 'export const x = 1;'));
    expect(plugin).toEqual({ isConfig: false, path: 'plugins/transition-log.ts', exports: ['transitionLog', 'x'], localImports: [] });
    expect(moduleInfo(ts('notifications: {', '  timeoutMs: 30_000,', '},')).isConfig).toBe(false);
  });
});
