import { identifier, quote } from './bash.js';
import { childWords, parentPaths, type ArgSpec, type CommandSpec, type CompletionSpec, type FlagSpec, type ValueSpec } from './spec.js';

/**
 * The zsh completion function for `spec`: the command path is read from the line with tables
 * generated from the spec, then a topic's words are offered with their descriptions (`_describe`)
 * and a command's flags and arguments with `_arguments`. Works autoloaded from $fpath (the file
 * is `_orange`, starting with `#compdef orange`) and sourced after compinit.
 */
export function zshScript(spec: CompletionSpec): string {
  const bin = spec.bin;
  const fn = `__${identifier(bin)}`;
  const main = `_${identifier(bin)}`;
  const caseOf = (key: string, body: string) => `    (${quote(key)}) ${body} ;;`;

  const words = parentPaths(spec).map((path) => caseOf(path.join(' '), `reply=(${childWords(spec, path).map((c) => quote(`${c.word}:${c.description}`)).join(' ')})`));
  const valued = spec.commands.flatMap((c) => c.flags.filter((f) => f.value !== null).flatMap((f) => [`--${f.name}`, ...(f.char ? [`-${f.char}`] : [])].map((flag) => `${c.words.join(' ')} ${flag}`)));
  const specs = spec.commands.map((c) => caseOf(c.words.join(' '), `reply=(\n${argumentSpecs(c, fn).map((s) => `      ${quote(s)}`).join('\n')}\n    )`));

  return `#compdef ${bin}
# ${bin} completion for zsh, printed by \`${bin} completion zsh\` from the commands of the ${bin} that printed it.
# Install: save it as _${bin} in a folder on $fpath, then start a new shell:
#   mkdir -p ~/.zfunc && ${bin} completion zsh > ~/.zfunc/_${bin}
#   and in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)
# In this shell (after compinit): source <(${bin} completion zsh)
# Task ids and project names are read from Orange's store when Tab is pressed (${bin} completion --list).

# The words that may follow a command path ('' is the top level), as word:description.
${fn}_words() {
  case $1 in
${words.join('\n')}
    (*) reply=() ;;
  esac
}

# True when a command's flag takes a value.
${fn}_valued() {
  case "$1 $2" in
    (${valued.map(quote).join('|') || "''"}) return 0 ;;
  esac
  return 1
}

# A command's _arguments specs.
${fn}_specs() {
  case $1 in
${specs.join('\n')}
    (*) reply=() ;;
  esac
}

# Task ids (with their status and summary), of the project named on the line if one is.
${fn}_tasks() {
  local i project
  local -a lines
  for (( i = 1; i < $#words; i++ )); do
    case $words[i] in
      (-p|--project) project=$words[i+1] ;;
      (--project=*) project=\${words[i]#*=} ;;
    esac
  done
  lines=(\${(f)"$(command ${bin} completion --list tasks --describe \${project:+--project} $project 2>/dev/null)"})
  lines=(\${lines/$'\\t'/:})
  _describe -t tasks 'task' lines
}

${fn}_projects() {
  local -a names
  names=(\${(f)"$(command ${bin} completion --list projects 2>/dev/null)"})
  _describe -t projects 'project' names
}

${main}() {
  local cmd='' word ended='' helping='' i n=1 args=0
  local -a reply
  # The command path (task show), where it ends on the line, and the arguments after it.
  for (( i = 2; i < CURRENT; i++ )); do
    word=$words[i]
    if [[ -z $ended && $word == -- ]]; then
      ended=1
    elif [[ -z $ended && $word == -* ]]; then
      [[ $word != *=* ]] && ${fn}_valued "$cmd" "$word" && (( i++ ))
    elif [[ -z $cmd && $args == 0 && -z $helping && $word == help ]]; then
      helping=1
    else
      ${fn}_words "$cmd"
      if (( args == 0 && \${reply[(I)\${(b)word}:*]} )); then
        cmd=\${cmd:+$cmd }$word
        n=$i
      else
        (( args++ ))
      fi
    fi
  done

  ${fn}_words "$cmd"
  local -a choices
  choices=("\${reply[@]}")
  if (( args == 0 && $#choices )) && [[ $PREFIX != -* || -n $helping ]]; then
    _describe -t commands '${bin} command' choices
    return
  fi
  [[ -n $helping || -z $cmd ]] && return 1
  ${fn}_specs "$cmd"
  (( $#reply )) || return 1
  # _arguments reads the words from the command's own name on.
  words=("\${(@)words[n,-1]}")
  (( CURRENT -= n - 1 ))
  _arguments -S : "\${reply[@]}"
}

if [[ $funcstack[1] == ${main} ]]; then
  # Autoloaded from $fpath: this file is the body of ${main}, and this call the first completion.
  ${main} "$@"
else
  compdef ${main} ${bin}
fi
`;
}

/** A command's specs for `_arguments`: each flag (and its -c and --no- spellings), then each argument. */
function argumentSpecs(command: CommandSpec, fn: string): string[] {
  return [...command.flags.flatMap((f) => flagSpecs(f, fn)), ...command.args.map((a, i) => argSpec(a, i, fn))];
}

function flagSpecs(flag: FlagSpec, fn: string): string[] {
  const names = [`--${flag.name}`, ...(flag.char ? [`-${flag.char}`] : []), ...(flag.negatable ? [`--no-${flag.name}`] : [])];
  const exclusive = flag.multiple ? '*' : names.length > 1 ? `(${names.join(' ')})` : '';
  const help = `[${bracketed(flag.description)}]`;
  if (flag.value === null) return names.map((name) => `${exclusive}${name}${help}`);
  const value = `:${message(flag.name)}:${action(flag.value, fn)}`;
  return names.map((name) => `${exclusive}${name}${name.startsWith('--') ? '=' : ''}${help}${value}`);
}

/** The n-th argument: `n:name:action`, or `n::name:action` when it may be left out. */
function argSpec(arg: ArgSpec, index: number, fn: string): string {
  return `${index + 1}:${arg.required ? '' : ':'}${message(arg.name)}:${action(arg.value, fn)}`;
}

function action(value: ValueSpec, fn: string): string {
  switch (value.kind) {
    case 'task':
      return `${fn}_tasks`;
    case 'project':
      return `${fn}_projects`;
    case 'file':
      return '_files';
    case 'directory':
      return '_directories';
    case 'choice':
      return `(${value.options.join(' ')})`;
    case 'text':
      return ' ';
  }
}

/** Text inside an option's [description]. */
function bracketed(text: string): string {
  return text.replace(/[\\[\]]/g, (c) => `\\${c}`);
}

/** The heading zsh shows over a value's matches. */
function message(name: string): string {
  return name.replace(/[:\\]/g, ' ');
}
