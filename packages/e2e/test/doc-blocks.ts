/**
 * The code blocks of a markdown page, read the way the docs test runs them: fenced blocks with
 * their line numbers and marks, the shell commands of a `sh` block, the imports and exports of a
 * TypeScript block. Pure: no disk, no processes.
 */

/** What a doc author wrote right before a fence: `<!-- docs-test: skip (reason) -->` or `<!-- docs-test: may-refuse -->`. */
export type BlockMark = { readonly kind: 'skip'; readonly reason: string } | { readonly kind: 'may-refuse'; readonly reason: string | null };

export interface FencedBlock {
  /** The first word of the info string, lower-cased: `sh`, `ts`, `json`, or `` for a bare fence. */
  readonly lang: string;
  /** The line of the opening fence, from 1. */
  readonly line: number;
  /** The lines between the fences, the fence's indentation removed. */
  readonly lines: readonly string[];
  readonly mark: BlockMark | null;
}

const MARK = /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;

/**
 * Every fenced block of a page (``` or ~~~, indented in a list item too). A `docs-test` comment
 * is the mark of the block whose fence is the next non-blank line; one it cannot read, or one
 * followed by no fence, throws with its line, so a typo never silently runs a block.
 */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: FencedBlock[] = [];
  let pending: { mark: BlockMark; line: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    const marked = MARK.exec(text);
    if (marked) {
      if (pending) throw new Error(`line ${pending.line}: a docs-test mark not followed by a code block`);
      pending = { mark: parseMark(marked[1] ?? '', i + 1), line: i + 1 };
      continue;
    }
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)/.exec(text);
    if (!open) {
      if (pending && text.trim() !== '') throw new Error(`line ${pending.line}: a docs-test mark not followed by a code block`);
      continue;
    }
    const indent = open[1]?.length ?? 0;
    const fence = open[2] ?? '```';
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const candidate = lines[j] ?? '';
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(candidate);
      if (close && close[1]?.[0] === fence[0] && (close[1]?.length ?? 0) >= fence.length) break;
      body.push(candidate.slice(Math.min(indent, candidate.length - candidate.trimStart().length)));
    }
    blocks.push({ lang: (open[3] ?? '').toLowerCase(), line: i + 1, lines: body, mark: pending?.mark ?? null });
    pending = null;
    i = j;
  }
  if (pending) throw new Error(`line ${pending.line}: a docs-test mark not followed by a code block`);
  return blocks;
}

function parseMark(text: string, line: number): BlockMark {
  const skip = /^skip\s*\((.+)\)$/.exec(text);
  if (skip) return { kind: 'skip', reason: (skip[1] ?? '').trim() };
  const refuse = /^may-refuse(?:\s*\((.+)\))?$/.exec(text);
  if (refuse) return { kind: 'may-refuse', reason: refuse[1]?.trim() ?? null };
  throw new Error(`line ${line}: unknown docs-test mark "${text}" (known: skip (reason), may-refuse)`);
}

/** Languages whose blocks are shell commands. */
export const SHELL_LANGS: ReadonlySet<string> = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
/** Languages whose blocks are modules: a config (with `export default`) or code a config imports. */
export const MODULE_LANGS: ReadonlySet<string> = new Set(['ts', 'typescript', 'mts', 'js', 'javascript', 'mjs']);

export type Operator = '|' | '&&' | '||' | ';';

export interface CommandSegment {
  /** `NAME=value` words before the program. */
  readonly env: Readonly<Record<string, string>>;
  readonly words: readonly string[];
  /** `> FILE`, `>> FILE`, `2> FILE`, `< FILE`: the operator (its file descriptor dropped) and the file. */
  readonly redirects: ReadonlyArray<{ readonly op: '>' | '>>' | '<'; readonly target: string }>;
  /** The operator that joins it to the segment before; null for the first. */
  readonly joinedBy: Operator | null;
}

export interface ShellCommand {
  /** The page line the command starts on. */
  readonly line: number;
  /** The command as written (continuation lines joined, comments kept out). */
  readonly text: string;
  readonly segments: readonly CommandSegment[];
}

/**
 * The commands of a shell block, as a POSIX shell would split them: words with single and double
 * quotes (a quoted newline stays in its word), `\` escapes and line continuations, `#` comments,
 * `|`, `&&`, `||`, `;` between commands, and redirections (`> FILE`, `2>> FILE`, `< FILE`).
 * Nothing is expanded (`$VAR`, `~` stay as written); `<id>`, `<branch>` are placeholder words,
 * not redirections. In a `console` block only lines starting with `$ ` are commands; the rest is output.
 * A leading `$ ` prompt is removed in any block.
 */
export function shellCommands(block: FencedBlock): ShellCommand[] {
  const source: Array<{ text: string; line: number }> = [];
  block.lines.forEach((text, index) => {
    const prompt = /^\s*\$ (.*)$/.exec(text);
    if (prompt) source.push({ text: prompt[1] ?? '', line: block.line + 1 + index });
    else if (block.lang !== 'console') source.push({ text, line: block.line + 1 + index });
  });
  const commands: ShellCommand[] = [];
  let segments: CommandSegment[] = [];
  let words: string[] = [];
  let redirects: Array<{ op: '>' | '>>' | '<'; target: string }> = [];
  let redirect: '>' | '>>' | '<' | null = null;
  let word: string | null = null;
  let joinedBy: Operator | null = null;
  let quote: "'" | '"' | null = null;
  let first = -1;
  const endWord = () => {
    if (word !== null && redirect !== null) {
      redirects.push({ op: redirect, target: word });
      redirect = null;
    } else if (word !== null) words.push(word);
    word = null;
  };
  const endSegment = (next: Operator | null) => {
    endWord();
    if (words.length > 0) {
      const env: Record<string, string> = {};
      let k = 0;
      for (; k < words.length; k++) {
        const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(words[k] ?? '');
        if (!assignment) break;
        env[assignment[1] ?? ''] = assignment[2] ?? '';
      }
      segments.push({ env, words: words.slice(k), redirects, joinedBy });
    }
    words = [];
    redirects = [];
    joinedBy = next;
  };
  const endCommand = (last: number) => {
    endSegment(null);
    if (segments.length > 0) {
      const text = source
        .slice(first, last + 1)
        .map((s) => s.text)
        .join('\n')
        .trim();
      commands.push({ line: source[first]?.line ?? block.line, text, segments });
    }
    segments = [];
    first = -1;
  };
  for (let l = 0; l < source.length; l++) {
    const line = source[l]?.text ?? '';
    if (first === -1) {
      if (line.trim() === '' || line.trim().startsWith('#')) continue;
      first = l;
    }
    let continued = false;
    for (let c = 0; c < line.length; c++) {
      const ch = line[c] as string;
      if (quote === "'") {
        if (ch === "'") quote = null;
        else word += ch;
      } else if (quote === '"') {
        if (ch === '"') quote = null;
        else if (ch === '\\' && '"\\$`'.includes(line[c + 1] ?? 'x')) word = (word ?? '') + (line[++c] ?? '');
        else word += ch;
      } else if (ch === '\\') {
        if (c === line.length - 1) continued = true;
        else word = (word ?? '') + (line[++c] ?? '');
      } else if (ch === "'" || ch === '"') {
        quote = ch;
        word = word ?? '';
      } else if (ch === '#' && word === null) break;
      else if (ch === '<' && /^<[A-Za-z][\w-]*>/.test(line.slice(c))) {
        const placeholder = /^<[A-Za-z][\w-]*>/.exec(line.slice(c))?.[0] ?? '';
        word = (word ?? '') + placeholder;
        c += placeholder.length - 1;
      } else if (ch === '>' || ch === '<') {
        // `2>` and `1>`: the digit names a file descriptor, not a word.
        if (word !== null && /^[0-9]$/.test(word)) word = null;
        endWord();
        redirect = ch === '>' && line[c + 1] === '>' ? '>>' : (ch as '>' | '<');
        if (redirect === '>>') c++;
      }
      else if (ch === ' ' || ch === '\t') endWord();
      else if (line.startsWith('&&', c) || line.startsWith('||', c)) endSegment(line.slice(c, ++c + 1) as Operator);
      else if (ch === '|' || ch === ';') endSegment(ch);
      else word = (word ?? '') + ch;
    }
    if (quote) word += '\n';
    else if (continued) endWord();
    // A line ending in `|`, `&&` or `||` goes on, as in a shell.
    else if (!(joinedBy !== null && joinedBy !== ';' && words.length === 0 && word === null)) endCommand(l);
  }
  if (quote) throw new Error(`line ${source[first]?.line ?? block.line}: an unterminated ${quote} quote`);
  if (first !== -1) endCommand(source.length - 1);
  return commands;
}

/** A sample task id of the docs (`V1StGXR8Z5jdHi6BmyT4a`: 21 characters of nanoid's alphabet, mixed case and a digit), `ID` or `<id>`. */
export function isSampleId(word: string): boolean {
  if (word === 'ID' || word === '<id>' || word === '<task-id>') return true;
  return /^[A-Za-z0-9_-]{21}$/.test(word) && /[A-Z]/.test(word) && /[a-z]/.test(word) && /[0-9]/.test(word);
}

/** Programs that only feed a command's standard input, run here by emulation (see {@link producedInput}). */
export const INPUT_PROGRAMS: ReadonlySet<string> = new Set(['cat', 'printf', 'echo']);
/** Programs that only read a command's output: the docs test drops them and reads the output itself. */
export const OUTPUT_PROGRAMS: ReadonlySet<string> = new Set(['less', 'head', 'tail', 'jq', 'grep', 'wc']);

export type CommandPlan =
  | {
      readonly kind: 'orange';
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      /** `cat FILE`, `printf …` or `echo …` piped into it. */
      readonly input: readonly string[] | null;
      /** Programs its output was piped into, and files it was redirected to: neither run nor written. */
      readonly readers: readonly string[];
    }
  | { readonly kind: 'cd'; readonly dir: string }
  | { readonly kind: 'other'; readonly program: string };

/**
 * What the docs test does with a command line, one plan per command of an `&&` or `;` list: runs
 * each `orange …` (optionally fed by `cat`/`printf`/`echo` or `< FILE`, read by `less`/`head`/…
 * or `> FILE`) and follows `cd DIR`. A line with any other program is one `other` plan, naming
 * it, and nothing of it is run (`npm ci && npm run demo`, `git branch -m x && orange …`).
 */
export function planCommand(command: ShellCommand): CommandPlan[] {
  const pipelines: CommandSegment[][] = [];
  for (const segment of command.segments) {
    if (segment.joinedBy === '&&' || segment.joinedBy === ';' || pipelines.length === 0) pipelines.push([segment]);
    else if (segment.joinedBy === '||') return [{ kind: 'other', program: `${segment.words[0] ?? ''} (after ||)` }];
    else pipelines.at(-1)?.push(segment);
  }
  const plans = pipelines.map(planPipeline);
  const other = plans.find((p) => p.kind === 'other');
  return other ? [other] : plans;
}

function planPipeline(segments: readonly CommandSegment[]): CommandPlan {
  const first = segments[0];
  if (segments.length === 1 && first?.words[0] === 'cd' && first.words.length === 2) return { kind: 'cd', dir: first.words[1] as string };
  const at = segments.findIndex((s) => s.words[0] === 'orange');
  const orange = segments[at];
  const foreign = (s: CommandSegment) => ({ kind: 'other', program: s.words[0] ?? '' }) as const;
  if (!orange) return foreign(first as CommandSegment);
  const before = segments.slice(0, at);
  const after = segments.slice(at + 1);
  if (before.length > 1) return foreign(before[0] as CommandSegment);
  const feeder = before[0];
  if (feeder && !INPUT_PROGRAMS.has(feeder.words[0] ?? '')) return foreign(feeder);
  const from = orange.redirects.filter((r) => r.op === '<').map((r) => r.target);
  if (feeder && from.length > 0) return foreign(feeder);
  for (const reader of after) if (!OUTPUT_PROGRAMS.has(reader.words[0] ?? '')) return foreign(reader);
  return {
    kind: 'orange',
    args: orange.words.slice(1),
    env: { ...(feeder?.env ?? {}), ...orange.env },
    input: feeder ? feeder.words : from.length > 0 ? ['cat', ...from] : null,
    readers: [...after.map((s) => s.words[0] ?? ''), ...orange.redirects.filter((r) => r.op !== '<').map((r) => `${r.op} ${r.target}`)],
  };
}

/**
 * The standard input `cat FILE`, `printf FORMAT [ARG…]` or `echo WORD…` would give, `cat`'s
 * file read through `readFile` (the test's sample files).
 */
export function producedInput(words: readonly string[], readFile: (name: string) => string): string {
  const [program, ...args] = words;
  if (program === 'echo') return `${args.join(' ')}\n`;
  if (program === 'cat') return args.map(readFile).join('');
  if (program === 'printf') {
    const [format = '', ...values] = args;
    let next = 0;
    return format.replace(/%s|\\n|\\t|\\\\/g, (token) => {
      if (token === '%s') return values[next++] ?? '';
      return token === '\\n' ? '\n' : token === '\\t' ? '\t' : '\\';
    });
  }
  throw new Error(`not an input program: ${program ?? ''}`);
}

export interface OrangeCommandRef {
  /** The manifest id, `task:create`; null when the words name no command. */
  readonly id: string | null;
  /** The words after the command's own: arguments and flags. */
  readonly rest: readonly string[];
}

/**
 * The command a list of `orange` arguments names, by the longest run of leading words that is a
 * command id (`task section set` → `task:section:set`), given the ids of the oclif manifest.
 */
export function commandOf(args: readonly string[], ids: ReadonlySet<string>): OrangeCommandRef {
  for (let n = Math.min(args.length, 3); n > 0; n--) {
    const id = args.slice(0, n).join(':');
    if (ids.has(id)) return { id, rest: args.slice(n) };
  }
  return { id: null, rest: args };
}

/** The flags a command line uses: `--name` (from `--name=value` too, `--no-name` as written) and each letter of `-abc`. */
export function flagsUsed(rest: readonly string[]): string[] {
  const flags: string[] = [];
  for (const word of rest) {
    if (word === '--') break;
    if (/^--[a-z]/i.test(word)) flags.push(word.replace(/=.*$/s, ''));
    else if (/^-[a-z]+$/i.test(word)) for (const letter of word.slice(1)) flags.push(`-${letter}`);
  }
  return flags;
}

export interface ModuleBlockInfo {
  /** An `export default` (or a first-line `// orange.config.ts` comment): a config to load. */
  readonly isConfig: boolean;
  /** The file a first-line comment names (`// plugins/transition-log.ts`), without a leading `~/…/` for a config. */
  readonly path: string | null;
  /** Names it exports (`export const minimal`, `export function transitionLog`). */
  readonly exports: readonly string[];
  /** Its relative imports: `./workflows/minimal.js` with the names it takes. */
  readonly localImports: ReadonlyArray<{ readonly from: string; readonly names: readonly string[] }>;
}

/** What a `ts`/`js` block is: a config, or a module that a config on the page may import. */
export function moduleInfo(block: FencedBlock): ModuleBlockInfo {
  const code = block.lines.join('\n');
  const firstLine = block.lines.find((l) => l.trim() !== '') ?? '';
  const named = /^\s*\/\/\s*(\S+\.(?:ts|mts|js|mjs))(?:\s|$)/.exec(firstLine)?.[1] ?? null;
  const config = named !== null && /(^|\/)orange\.config\.\w+$/.test(named);
  const path = named === null ? null : config ? (named.split('/').pop() ?? named) : named.replace(/^\.\//, '');
  const exports = [...code.matchAll(/^export\s+(?:async\s+)?(?:const|let|function|class)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1] as string);
  for (const list of code.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const item of (list[1] ?? '').split(',')) {
      const name = item.trim().split(/\s+as\s+/).pop();
      if (name) exports.push(name);
    }
  }
  const localImports = [...code.matchAll(/^import\s+(?:type\s+)?(?:\{([^}]*)\}|([A-Za-z_$][\w$]*))\s+from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => ({
    from: m[3] as string,
    names: (m[1] ?? m[2] ?? '')
      .split(',')
      .map((n) => n.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0] ?? '')
      .filter(Boolean),
  }));
  return { isConfig: config || /^export\s+default\b/m.test(code), path, exports, localImports };
}
