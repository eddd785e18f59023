import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { describe, expect, it } from 'vitest';
import { requiredTaskIdArg } from '../command/flags.js';
import { COMMANDS } from '../startup/commands.js';
import { ARG_VALUES, childWords, completionSpec, type CommandSpec } from './spec.js';

const TOPICS = [
  { name: 'task', description: 'Create, inspect and move tasks' },
  { name: 'agent', description: 'Reports from agent runtimes (internal)', hidden: true },
  { name: 'notifications', description: 'Notification delivery (internal)', hidden: true },
];
const spec = completionSpec('orange', COMMANDS, TOPICS);
const command = (words: string): CommandSpec => {
  const found = spec.commands.find((c) => c.words.join(' ') === words);
  if (!found) throw new Error(`no command ${words} in the spec`);
  return found;
};

describe('completionSpec: the command table as completion sees it', () => {
  it('offers every visible command by its words, and help and version', () => {
    const ids = spec.commands.map((c) => c.words.join(' '));
    expect(ids).toEqual(expect.arrayContaining(['task show', 'task section set', 'project add', 'completion', 'dash', 'help', 'version']));
    for (const hidden of ['agent exited', 'notifications deliver', 'pipeline run']) expect(ids).not.toContain(hidden);
  });

  it('derives the topics from the commands, with their descriptions', () => {
    expect(spec.topics.map((t) => t.words.join(' '))).toEqual(expect.arrayContaining(['task', 'task section', 'project', 'workspace']));
    expect(spec.topics.find((t) => t.words.join(' ') === 'task')?.description).toBe('Create, inspect and move tasks');
    // pipeline holds only a hidden command; agent is a hidden topic.
    expect(spec.topics.map((t) => t.words[0])).not.toContain('pipeline');
    expect(spec.topics.map((t) => t.words[0])).not.toContain('agent');
  });

  it('completes task ids for the task-id arguments of command/flags.ts and the --task flags', () => {
    for (const words of ['task show', 'task cancel', 'task merge', 'task update', 'task complete', 'task stuck']) {
      expect(command(words).args[0]?.value, words).toEqual({ kind: 'task' });
    }
    expect(command('task move').args.map((a) => a.value.kind)).toEqual(['task', 'text']);
    expect(command('task create').args.map((a) => a.value.kind)).toEqual(['text', 'text']);
    expect(command('task section set').flags.find((f) => f.name === 'task')?.value).toEqual({ kind: 'task' });
  });

  it('completes project names for --project/-p everywhere, and for the project commands that take one', () => {
    const withProject = spec.commands.flatMap((c) => c.flags.filter((f) => f.name === 'project').map((f) => ({ words: c.words.join(' '), f })));
    expect(withProject.length).toBeGreaterThan(20);
    for (const { words, f } of withProject) expect(f.value, words).toEqual({ kind: 'project' });
    expect(command('task list').flags.find((f) => f.name === 'project')?.char).toBe('p');
    expect(command('project remove').args[0]?.value).toEqual({ kind: 'project' });
    expect(command('project add').args[0]?.value).toEqual({ kind: 'directory' });
  });

  it('every argument ARG_VALUES names still exists in the table', () => {
    for (const [id, args] of Object.entries(ARG_VALUES)) {
      const found = COMMANDS[id as keyof typeof COMMANDS] as { args?: Record<string, unknown> } | undefined;
      expect(found, id).toBeDefined();
      for (const name of Object.keys(args)) expect(Object.keys(found?.args ?? {}), `${id} ${name}`).toContain(name);
    }
  });

  it('reads switches, negatable switches, choices, repeatable flags and the shared --json', () => {
    const flag = (words: string, name: string) => command(words).flags.find((f) => f.name === name);
    expect(flag('task list', 'all')).toMatchObject({ char: 'a', value: null, negatable: false });
    expect(flag('task create', 'spawn')).toMatchObject({ value: null, negatable: true });
    expect(flag('log', 'level')?.value).toEqual({ kind: 'choice', options: ['debug', 'info', 'warn', 'error'] });
    expect(flag('task list', 'status')).toMatchObject({ multiple: true, value: { kind: 'text' } });
    expect(flag('project list', 'json')).toMatchObject({ value: null });
    expect(command('completion').args[0]?.value).toEqual({ kind: 'choice', options: ['bash', 'zsh', 'fish'] });
  });

  it('leaves out hidden flags, hidden arguments and the ids of hidden aliases', () => {
    const table = {
      show: {
        hiddenAliases: ['display'],
        summary: 'Show it.\nMore text.',
        flags: { shown: Flags.boolean({ description: 'Shown.' }), secret: Flags.string({ hidden: true }) },
        args: { id: requiredTaskIdArg, other: Args.string({ hidden: true }) },
      },
    };
    const small = completionSpec('x', { ...table, display: table.show });
    expect(small.commands.map((c) => c.words.join(' '))).toEqual(['show', 'help', 'version']);
    expect(small.commands[0]).toEqual({
      words: ['show'],
      description: 'Show it',
      flags: [{ name: 'shown', description: 'Shown', value: null, multiple: false, negatable: false }],
      args: [{ name: 'id', description: 'Task id', required: true, value: { kind: 'task' } }],
    });
  });
});

describe('childWords', () => {
  it('lists the topics and commands one level below a path, topics first', () => {
    const top = childWords(spec, []).map((c) => c.word);
    expect(top.slice(0, 5)).toEqual(['memory', 'project', 'task', 'workflow', 'workspace']);
    expect(top).toEqual(expect.arrayContaining(['completion', 'dash', 'help', 'version']));
    expect(childWords(spec, ['task']).map((c) => c.word)).toEqual(expect.arrayContaining(['section', 'show', 'create', 'create-pr']));
    expect(childWords(spec, ['task', 'section'])).toEqual([{ word: 'set', description: expect.any(String) }]);
    expect(childWords(spec, ['task', 'show'])).toEqual([]);
  });
});
