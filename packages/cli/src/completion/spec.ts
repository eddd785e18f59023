import { requiredTaskIdArg, taskIdArg } from '../command/flags.js';

/**
 * What shell completion knows of the CLI: its commands, the topics that group them, and what each
 * flag and argument takes. Built from the command table on every `orange completion`, so a script
 * is never older than the orange that printed it; the shells' generators only render it.
 */
export interface CompletionSpec {
  /** The command name the script completes (`orange`). */
  readonly bin: string;
  /** Topics (`task`, `task section`) and commands, in the order they are offered. */
  readonly topics: readonly TopicSpec[];
  readonly commands: readonly CommandSpec[];
}

export interface TopicSpec {
  readonly words: readonly string[];
  readonly description: string;
}

export interface CommandSpec {
  /** `['task', 'show']` for `orange task show`. */
  readonly words: readonly string[];
  readonly description: string;
  readonly flags: readonly FlagSpec[];
  /** Positional arguments, in order. */
  readonly args: readonly ArgSpec[];
}

export interface FlagSpec {
  /** Without the dashes: `project`. */
  readonly name: string;
  /** `p` for `-p`. */
  readonly char?: string;
  readonly description: string;
  /** What the flag's value is; null for a switch. */
  readonly value: ValueSpec | null;
  /** May be given more than once. */
  readonly multiple: boolean;
  /** Also spelled `--no-<name>`. */
  readonly negatable: boolean;
}

export interface ArgSpec {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  readonly value: ValueSpec;
}

/**
 * What a value completes to: a task id or a project name (read from the store when Tab is
 * pressed), a path, one of fixed choices, or free text (nothing offered).
 */
export type ValueSpec = { readonly kind: 'task' | 'project' | 'file' | 'directory' | 'text' } | { readonly kind: 'choice'; readonly options: readonly string[] };

/** The parts of an oclif flag definition completion reads. */
interface FlagDefinition {
  readonly type: 'boolean' | 'option';
  readonly char?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly hidden?: boolean;
  readonly multiple?: boolean;
  readonly allowNo?: boolean;
  readonly options?: readonly string[];
}

/** The parts of an oclif argument definition completion reads. */
interface ArgDefinition {
  readonly description?: string;
  readonly required?: boolean;
  readonly hidden?: boolean;
  readonly options?: readonly string[];
}

/** The parts of a command class (or oclif's cached command) completion reads. */
export interface CommandDefinition {
  readonly hidden?: boolean;
  readonly hiddenAliases?: readonly string[];
  readonly summary?: string;
  readonly description?: string;
  readonly flags?: Readonly<Record<string, FlagDefinition>>;
  readonly baseFlags?: Readonly<Record<string, FlagDefinition>>;
  readonly args?: Readonly<Record<string, ArgDefinition>>;
}

/** A topic as oclif's config lists it: `task`, or `task:section`. */
export interface TopicDefinition {
  readonly name: string;
  readonly description?: string;
  readonly hidden?: boolean;
}

/**
 * Values the definitions cannot say by themselves. Task-id arguments are the shared ones of
 * command/flags.ts, recognised by identity; flags by name, wherever they appear; the few other
 * arguments by command and name (a unit test checks that each still exists).
 */
export const FLAG_VALUES: Readonly<Record<string, ValueSpec>> = {
  project: { kind: 'project' },
  task: { kind: 'task' },
  file: { kind: 'file' },
};
export const ARG_VALUES: Readonly<Record<string, Readonly<Record<string, ValueSpec>>>> = {
  'project:add': { path: { kind: 'directory' } },
  'project:remove': { name: { kind: 'project' } },
  'project:update': { name: { kind: 'project' } },
};

/** Not in the command table (the command-not-found hook answers them), but typed like commands. */
const BUILT_IN: readonly CommandSpec[] = [
  { words: ['help'], description: 'Show help for a command', flags: [], args: [] },
  { words: ['version'], description: 'Show the version of orange and the commit it was built from', flags: [], args: [] },
];

/**
 * The completion spec of a command table (`task:show` → its class; oclif's table also lists each
 * alias under its own id). Hidden commands, aliases, flags and topics are left out; a topic is
 * offered when it holds a visible command.
 */
export function completionSpec(bin: string, table: Readonly<Record<string, CommandDefinition>>, topicList: readonly TopicDefinition[] = []): CompletionSpec {
  const hiddenTopics = new Set(topicList.filter((t) => t.hidden).map((t) => t.name));
  const commands = Object.entries(table)
    .filter(([id, command]) => !command.hidden && !command.hiddenAliases?.includes(id) && !id.split(':').some((_, i, parts) => hiddenTopics.has(parts.slice(0, i + 1).join(':'))))
    .map(([id, command]) => commandSpec(id, command))
    .sort((a, b) => a.words.join(' ').localeCompare(b.words.join(' ')));
  const described = new Map(topicList.map((t) => [t.name, firstLine(t.description)]));
  const topicIds = new Set<string>();
  for (const { words } of commands) for (let n = 1; n < words.length; n++) topicIds.add(words.slice(0, n).join(':'));
  const topics = [...topicIds].sort().map((id) => ({ words: id.split(':'), description: described.get(id) ?? '' }));
  return { bin, topics, commands: [...commands, ...BUILT_IN] };
}

function commandSpec(id: string, command: CommandDefinition): CommandSpec {
  const flags = Object.entries({ ...command.baseFlags, ...command.flags })
    .filter(([, flag]) => !flag.hidden)
    .map(([name, flag]): FlagSpec => ({
      name,
      ...(flag.char ? { char: flag.char } : {}),
      description: firstLine(flag.summary ?? flag.description),
      value: flag.type === 'boolean' ? null : (FLAG_VALUES[name] ?? (flag.options ? { kind: 'choice', options: flag.options } : { kind: 'text' })),
      multiple: flag.multiple === true,
      negatable: flag.type === 'boolean' && flag.allowNo === true,
    }));
  const args = Object.entries(command.args ?? {})
    .filter(([, arg]) => !arg.hidden)
    .map(([name, arg]): ArgSpec => ({
      name,
      description: firstLine(arg.description),
      required: arg.required === true,
      value: arg === taskIdArg || arg === requiredTaskIdArg ? { kind: 'task' } : (ARG_VALUES[id]?.[name] ?? (arg.options ? { kind: 'choice', options: arg.options } : { kind: 'text' })),
    }));
  return { words: id.split(':'), description: firstLine(command.summary ?? command.description), flags, args };
}

/** One line of text for a menu: the first line, its whitespace plain spaces (fish splits on a tab), without a trailing period. */
function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0]!.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
}

/** The words that may follow `words` (a topic's commands and subtopics; the top level's for []). */
export function childWords(spec: CompletionSpec, words: readonly string[]): Array<{ word: string; description: string }> {
  const seen = new Map<string, string>();
  const depth = words.length;
  const under = (w: readonly string[]) => w.length > depth && words.every((word, i) => w[i] === word);
  for (const topic of spec.topics) if (under(topic.words) && topic.words.length === depth + 1) seen.set(topic.words[depth]!, topic.description);
  for (const command of spec.commands) if (under(command.words) && command.words.length === depth + 1 && !seen.has(command.words[depth]!)) seen.set(command.words[depth]!, command.description);
  return [...seen].map(([word, description]) => ({ word, description }));
}

/** Every command path that has words after it: the top level ([]) and each topic. */
export function parentPaths(spec: CompletionSpec): ReadonlyArray<readonly string[]> {
  return [[], ...spec.topics.map((t) => t.words)];
}
