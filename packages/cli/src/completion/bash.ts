import { childWords, parentPaths, type CompletionSpec, type ValueSpec } from './spec.js';

/**
 * The bash completion script for `spec`: four lookup functions generated from the spec (the words
 * after a command path, a command's flags, what a flag's value is, what an argument is) and one
 * fixed function that reads the command line with them. Plain `case` statements and no
 * bash-completion helpers, so it runs in bash 3.2 (macOS) with nothing else installed.
 */
export function bashScript(spec: CompletionSpec): string {
  const bin = spec.bin;
  const fn = `__${identifier(bin)}`;
  const cases = (rows: ReadonlyArray<readonly [readonly string[], string]>) => rows.map(([patterns, reply]) => `    ${patterns.map(quote).join('|')}) REPLY=${quote(reply)} ;;`).join('\n');

  const words = parentPaths(spec).map((path) => [[path.join(' ')], childWords(spec, path).map((c) => c.word).join(' ')] as const);
  const flags = spec.commands.map((c) => [[c.words.join(' ')], c.flags.flatMap((f) => [`--${f.name}`, ...(f.negatable ? [`--no-${f.name}`] : []), ...(f.char ? [`-${f.char}`] : [])]).join(' ')] as const);
  const values = spec.commands.flatMap((c) =>
    c.flags.filter((f) => f.value !== null).map((f) => [[`--${f.name}`, ...(f.char ? [`-${f.char}`] : [])].map((flag) => `${c.words.join(' ')} ${flag}`), valueWord(f.value!)] as const),
  );
  const args = spec.commands.flatMap((c) => c.args.map((a, i) => [[`${c.words.join(' ')} ${i + 1}`], valueWord(a.value)] as const));

  return `# ${bin} completion for bash, printed by \`${bin} completion bash\` from the commands of the ${bin} that printed it.
# In this shell:   source <(${bin} completion bash)
# In every shell:  ${bin} completion bash >> ~/.bashrc
# Task ids and project names are read from Orange's store when Tab is pressed (${bin} completion --list).

# The words that may follow a command path ('' is the top level).
${fn}_words() {
  case "$1" in
${cases(words)}
    *) REPLY='' ;;
  esac
}

# A command's flags.
${fn}_flags() {
  case "$1" in
${cases(flags)}
    *) REPLY='' ;;
  esac
}

# What a command's flag takes: @task, @project, @file, @directory, @text, or :choices; '' for a switch.
${fn}_value() {
  case "$1 $2" in
${cases(values)}
    *) REPLY='' ;;
  esac
}

# What a command's n-th argument is, as for a flag's value.
${fn}_arg() {
  case "$1 $2" in
${cases(args)}
    *) REPLY='' ;;
  esac
}

# COMPREPLY from the lines of standard input (no word splitting or globbing of file names).
${fn}_reply() {
  COMPREPLY=()
  while IFS= read -r REPLY; do COMPREPLY+=("$REPLY"); done
}

# Completes the word $2 as a value of kind $1 ($3: the project named on the command line).
${fn}_complete() {
  case "$1" in
    @task) ${fn}_reply < <(compgen -W "$(command ${bin} completion --list tasks \${3:+--project "$3"} 2>/dev/null)" -- "$2") ;;
    @project) ${fn}_reply < <(compgen -W "$(command ${bin} completion --list projects 2>/dev/null)" -- "$2") ;;
    @file) ${fn}_reply < <(compgen -f -- "$2"); compopt -o filenames 2>/dev/null ;;
    @directory) ${fn}_reply < <(compgen -d -- "$2"); compopt -o filenames 2>/dev/null ;;
    :*) ${fn}_reply < <(compgen -W "\${1#:}" -- "$2") ;;
  esac
}

_${identifier(bin)}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} path='' word flag='' project='' args=0 i=1 ended='' helping=''
  COMPREPLY=()
  # The command path (task show), the arguments after it, and the project a -p names.
  while [ "$i" -lt "$COMP_CWORD" ]; do
    word=\${COMP_WORDS[i]}
    if [ -z "$ended" ] && [ "$word" = -- ]; then
      ended=1
    elif [ -z "$ended" ] && [ "\${word#-}" != "$word" ]; then
      ${fn}_value "$path" "\${word%%=*}"
      if [ -n "$REPLY" ] && [ "\${word#*=}" = "$word" ]; then
        # The value is the next word; bash splits --flag=value into --flag, =, value.
        i=$((i + 1))
        [ "\${COMP_WORDS[i]}" = = ] && i=$((i + 1))
        [ "$REPLY" = @project ] && project=\${COMP_WORDS[i]}
      elif [ "$REPLY" = @project ]; then
        project=\${word#*=}
      fi
    elif [ -z "$path" ] && [ "$args" -eq 0 ] && [ -z "$helping" ] && [ "$word" = help ]; then
      helping=1
    else
      ${fn}_words "$path"
      if [ "$args" -eq 0 ] && [[ " $REPLY " == *" $word "* ]]; then
        path=\${path:+$path }$word
      else
        args=$((args + 1))
      fi
    fi
    i=$((i + 1))
  done

  # A flag's value: after "--flag ", or after "--flag=" (bash makes = a word of its own).
  if [ "$cur" = = ]; then
    flag=\${COMP_WORDS[COMP_CWORD - 1]}
    cur=''
  elif [ "$COMP_CWORD" -gt 1 ]; then
    flag=\${COMP_WORDS[COMP_CWORD - 1]}
    [ "$flag" = = ] && [ "$COMP_CWORD" -gt 2 ] && flag=\${COMP_WORDS[COMP_CWORD - 2]}
  fi
  if [ -z "$ended" ] && [ -z "$helping" ] && [ "\${flag#-}" != "$flag" ]; then
    ${fn}_value "$path" "$flag"
    if [ -n "$REPLY" ]; then
      ${fn}_complete "$REPLY" "$cur" "$project"
      return 0
    fi
  fi
  if [ -z "$ended" ] && [ -z "$helping" ] && [ "\${cur#-}" != "$cur" ]; then
    ${fn}_flags "$path"
    ${fn}_reply < <(compgen -W "$REPLY" -- "$cur")
    return 0
  fi
  if [ "$args" -eq 0 ]; then
    ${fn}_words "$path"
    if [ -n "$REPLY" ]; then
      ${fn}_reply < <(compgen -W "$REPLY" -- "$cur")
      return 0
    fi
  fi
  [ -n "$helping" ] && return 0
  ${fn}_arg "$path" $((args + 1))
  [ -n "$REPLY" ] && ${fn}_complete "$REPLY" "$cur" "$project"
  return 0
}

complete -F _${identifier(bin)} ${bin}
`;
}

/** A value kind as the script's lookup functions answer it. */
function valueWord(value: ValueSpec): string {
  return value.kind === 'choice' ? `:${value.options.join(' ')}` : `@${value.kind}`;
}

/** A word for POSIX shells, single-quoted. */
export function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command name as part of a shell function name. */
export function identifier(bin: string): string {
  return bin.replace(/[^A-Za-z0-9_]/g, '_');
}
