import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../startup/commands.js';
import { completionScript, shellOf } from './script.js';
import { completionSpec, type CompletionSpec } from './spec.js';

const spec = completionSpec('orange', COMMANDS, [{ name: 'task', description: 'Create, inspect and move tasks' }]);

/** A spec small enough to read in a failure. */
const SMALL: CompletionSpec = {
  bin: 'orange',
  topics: [{ words: ['task'], description: "Tasks, 'quoted' [and bracketed]" }],
  commands: [
    {
      words: ['task', 'show'],
      description: 'Show a task',
      flags: [{ name: 'project', char: 'p', description: 'Project name', value: { kind: 'project' }, multiple: false, negatable: false }],
      args: [{ name: 'id', description: 'Task id', required: false, value: { kind: 'task' } }],
    },
  ],
};

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'orange-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What the scripts run on Tab, stubbed: `orange completion --list …` answers from a fixed store
// and notes each call, so a test sees which project was passed.
const bin = join(dir, 'bin');
const calls = join(dir, 'calls');
execFileSync('mkdir', ['-p', bin]);
writeFileSync(
  join(bin, 'orange'),
  `#!/bin/sh
echo "$*" >> ${calls}
case "$*" in
  *"--list projects"*) printf '%s\\n' web api ;;
  *"--list tasks --describe --project web"*) printf 'WebTask00000000000001\\tworking: fix the build\\n' ;;
  *"--list tasks --describe"*) printf 'WebTask00000000000001\\tworking: fix the build\\nApiTask00000000000002\\tdone: ship it\\n' ;;
  *"--list tasks --project web"*) printf '%s\\n' WebTask00000000000001 ;;
  *"--list tasks"*) printf '%s\\n' WebTask00000000000001 ApiTask00000000000002 ;;
esac
`,
);
chmodSync(join(bin, 'orange'), 0o755);
const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir };

/** What bash offers for the line `words` (the last word is the one Tab completes). */
function bashOffers(words: readonly string[], script = completionScript('bash', spec)): string[] {
  const file = join(dir, 'orange.bash');
  writeFileSync(file, script);
  const array = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ');
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `source ${file}; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _orange; printf '%s\\n' "\${COMPREPLY[@]}"`], { env, encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

describe('the bash script', () => {
  it('is valid bash, and complete -F registers it for orange', () => {
    const file = join(dir, 'syntax.bash');
    writeFileSync(file, completionScript('bash', spec));
    expect(execFileSync('bash', ['--norc', '-c', `source ${file} && complete -p orange`], { env, encoding: 'utf8' }).trim()).toBe('complete -F _orange orange');
  });

  it('completes topics, commands and subcommands', () => {
    expect(bashOffers(['orange', 'ta'])).toEqual(['task']);
    expect(bashOffers(['orange', 'task', 'sh'])).toEqual(['show']);
    expect(bashOffers(['orange', 'task', 'create'])).toEqual(['create', 'create-pr']);
    expect(bashOffers(['orange', 'task', 'section', ''])).toEqual(['set']);
    expect(bashOffers(['orange', 'comp'])).toEqual(['completion']);
    expect(bashOffers(['orange', 'help', 'task', 'sh'])).toEqual(['show']);
  });

  it('completes a command\'s flags, and nothing for the flags of another', () => {
    expect(bashOffers(['orange', 'task', 'list', '--pro'])).toEqual(['--project']);
    expect(bashOffers(['orange', 'task', 'list', '--'])).toEqual(['--json', '--project', '--status', '--all']);
    expect(bashOffers(['orange', 'task', 'create', '--no-'])).toEqual(['--no-spawn']);
    expect(bashOffers(['orange', 'project', 'list', '--pro'])).toEqual([]);
  });

  it('completes task ids from the store, of the project named with -p, --project or --project=', () => {
    expect(bashOffers(['orange', 'task', 'show', ''])).toEqual(['WebTask00000000000001', 'ApiTask00000000000002']);
    expect(bashOffers(['orange', 'task', 'show', 'A'])).toEqual(['ApiTask00000000000002']);
    expect(bashOffers(['orange', 'task', 'show', '-p', 'web', ''])).toEqual(['WebTask00000000000001']);
    expect(bashOffers(['orange', 'task', 'cancel', '--project', '=', 'web', '--yes', ''])).toEqual(['WebTask00000000000001']);
    expect(bashOffers(['orange', 'task', 'section', 'set', 'Plan', '--task', ''])).toEqual(['WebTask00000000000001', 'ApiTask00000000000002']);
    // task move's second argument is a status: nothing to offer.
    expect(bashOffers(['orange', 'task', 'move', 'WebTask00000000000001', ''])).toEqual([]);
  });

  it('completes project names after --project, -p and --project=', () => {
    expect(bashOffers(['orange', 'task', 'list', '--project', ''])).toEqual(['web', 'api']);
    expect(bashOffers(['orange', 'task', 'list', '-p', 'w'])).toEqual(['web']);
    expect(bashOffers(['orange', 'task', 'list', '--project', '='])).toEqual(['web', 'api']);
    expect(bashOffers(['orange', 'task', 'list', '--project', '=', 'a'])).toEqual(['api']);
    expect(bashOffers(['orange', 'project', 'remove', ''])).toEqual(['web', 'api']);
  });

  it('completes the choices of a flag or an argument, and nothing for free text', () => {
    expect(bashOffers(['orange', 'log', '--level', 'w'])).toEqual(['warn']);
    expect(bashOffers(['orange', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(bashOffers(['orange', 'task', 'update', '--summary', ''])).toEqual([]);
  });

  it('reads a flag\'s value as its value, not as the command or an argument', () => {
    // `web` is -p's value; the next word is still task show's first argument.
    expect(bashOffers(['orange', 'task', 'show', '-p', 'web', 'W'])).toEqual(['WebTask00000000000001']);
    expect(bashOffers(['orange', 'task', 'show', 'WebTask00000000000001', ''])).toEqual([]);
  });

  it('quotes what the spec says', () => {
    const script = completionScript('bash', SMALL);
    expect(bashOffers(['orange', 'task', 's'], script)).toEqual(['show']);
    expect(bashOffers(['orange', 'task', 'show', '-'], script)).toEqual(['--project', '-p']);
  });
});

// In CI zsh and fish must be there (.ci/run installs them): a missing shell fails there instead of skipping.
describe.skipIf(!has('zsh') && !process.env.CI)('the zsh script', () => {
  it('is valid zsh, starts with #compdef, and quotes descriptions', () => {
    for (const [name, s] of [['full', spec], ['small', SMALL]] as const) {
      const script = completionScript('zsh', s);
      expect(script.startsWith('#compdef orange\n')).toBe(true);
      const file = join(dir, `_orange_${name}`);
      writeFileSync(file, script);
      expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' }).stderr).toBe('');
    }
    expect(completionScript('zsh', SMALL)).toContain(`'task:Tasks, '\\''quoted'\\'' [and bracketed]'`);
    expect(completionScript('zsh', spec)).toContain(`'(--project -p)--project=[Project name (default: the registered repository you are in)]:project:__orange_projects'`);
  });
});

describe.skipIf(!has('fish') && !process.env.CI)('the fish script', () => {
  /** What fish offers for `line` (`complete -C`), each as word<TAB>description. */
  function fishOffers(line: string, script = completionScript('fish', spec)): string[] {
    const file = join(dir, 'orange.fish');
    writeFileSync(file, script);
    const out = execFileSync('fish', ['--no-config', '-c', `source ${file}; complete -C ${JSON.stringify(line)}`], { env, encoding: 'utf8' });
    return out.split('\n').filter(Boolean);
  }
  const words = (line: string) => fishOffers(line).map((l) => l.split('\t')[0]);

  it('completes topics, commands, flags and values, with descriptions', () => {
    expect(fishOffers('orange ta')).toEqual(['task\tCreate, inspect and move tasks']);
    expect(words('orange task sh')).toEqual(['show']);
    expect(words('orange task list --pro')).toEqual(['--project']);
    expect(words('orange task list --project ')).toEqual(['api', 'web']);
    expect(words('orange task list --project=w')).toEqual(['--project=web']);
    expect(fishOffers('orange task show -p web ')).toEqual(['WebTask00000000000001\tworking: fix the build']);
    expect(words('orange task show ')).toEqual(['ApiTask00000000000002', 'WebTask00000000000001']);
    expect(words('orange log --level w')).toEqual(['warn']);
    expect(words('orange help task sh')).toEqual(['show']);
  });

  it('quotes what the spec says', () => {
    expect(fishOffers('orange t', completionScript('fish', SMALL))).toEqual(["task\tTasks, 'quoted' [and bracketed]"]);
  });
});

describe('shellOf', () => {
  it('names the shell of a $SHELL path, if it is one orange writes a script for', () => {
    expect(shellOf('/usr/bin/zsh')).toBe('zsh');
    expect(shellOf('/bin/bash')).toBe('bash');
    expect(shellOf('/usr/local/bin/fish')).toBe('fish');
    expect(shellOf('/bin/sh')).toBeUndefined();
    expect(shellOf(undefined)).toBeUndefined();
  });
});
