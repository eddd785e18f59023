import { identifier } from './bash.js';
import { childWords, parentPaths, type CompletionSpec, type ValueSpec } from './spec.js';

/**
 * The fish completion script for `spec`: one `complete` whose candidates (`word<TAB>description`)
 * come from a function that reads the command line with tables generated from the spec, as the
 * bash script does, so fish evaluates one condition per Tab instead of one per flag.
 */
export function fishScript(spec: CompletionSpec): string {
  const bin = spec.bin;
  const fn = `__${identifier(bin)}`;
  const lines = (rows: ReadonlyArray<readonly [string, string]>) => rows.map(([word, description]) => fishQuote(description ? `${word}\t${description}` : word)).join(' ');
  const caseOf = (patterns: readonly string[], body: string) => `        case ${patterns.map(fishQuote).join(' ')}\n            ${body}`;

  const words = parentPaths(spec).map((path) => caseOf([path.join(' ')], `printf '%s\\n' ${lines(childWords(spec, path).map((c) => [c.word, c.description]))}`));
  const flags = spec.commands.map((c) =>
    caseOf(
      [c.words.join(' ')],
      `printf '%s\\n' ${lines(c.flags.flatMap((f) => [[`--${f.name}`, f.description], ...(f.negatable ? [[`--no-${f.name}`, f.description] as const] : []), ...(f.char ? [[`-${f.char}`, f.description] as const] : [])] as Array<readonly [string, string]>))}`,
    ),
  );
  const values = spec.commands.flatMap((c) =>
    c.flags.filter((f) => f.value !== null).map((f) => caseOf([`--${f.name}`, ...(f.char ? [`-${f.char}`] : [])].map((flag) => `${c.words.join(' ')} ${flag}`), `echo ${fishQuote(valueWord(f.value!))}`)),
  );
  const args = spec.commands.flatMap((c) => c.args.map((a, i) => caseOf([`${c.words.join(' ')} ${i + 1}`], `echo ${fishQuote(valueWord(a.value))}`)));

  return `# ${bin} completion for fish, printed by \`${bin} completion fish\` from the commands of the ${bin} that printed it.
# Install: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish
# In this shell: ${bin} completion fish | source
# Task ids and project names are read from Orange's store when Tab is pressed (${bin} completion --list).

# The words that may follow a command path ('' is the top level), as word<TAB>description.
function ${fn}_words --argument-names cmd
    switch "$cmd"
${words.join('\n')}
    end
end

# A command's flags, as flag<TAB>description.
function ${fn}_flags --argument-names cmd
    switch "$cmd"
${flags.join('\n')}
    end
end

# What a command's flag takes: @task, @project, @file, @directory, @text, or :choices; nothing for a switch.
function ${fn}_value --argument-names cmd flag
    switch "$cmd $flag"
${values.join('\n')}
    end
end

# What a command's n-th argument is, as for a flag's value.
function ${fn}_arg --argument-names cmd n
    switch "$cmd $n"
${args.join('\n')}
    end
end

# The candidates for a value of kind $argv[1] ($argv[2]: the project named on the line).
function ${fn}_values --argument-names kind project
    switch $kind
        case @task
            if test -n "$project"
                command ${bin} completion --list tasks --describe --project $project 2>/dev/null
            else
                command ${bin} completion --list tasks --describe 2>/dev/null
            end
        case @project
            command ${bin} completion --list projects 2>/dev/null
        case @file
            __fish_complete_path (commandline -ct)
        case @directory
            __fish_complete_directories (commandline -ct)
        case ':*'
            string split ' ' -- (string sub -s 2 -- $kind)
    end
end

function ${fn}_complete
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmd ''
    set -l args 0
    set -l ended 0
    set -l helping 0
    set -l project ''
    set -l i 1
    # The command path (task show), the arguments after it, and the project a -p names.
    while test $i -le (count $tokens)
        set -l word $tokens[$i]
        # string match, not test: test reads a word like -p as an operator.
        if test $ended = 0; and string match -q -- -- $word
            set ended 1
        else if test $ended = 0; and string match -q -- '-*' $word
            set -l flag (string split -m 1 = -- $word)
            set -l kind (${fn}_value "$cmd" $flag[1])
            if test -n "$kind"; and test (count $flag) = 1
                set i (math $i + 1)
                if test $kind = @project; and test $i -le (count $tokens)
                    set project $tokens[$i]
                end
            else if test "$kind" = @project
                set project $flag[2]
            end
        else if test -z "$cmd" -a $args = 0 -a $helping = 0; and string match -q -- help $word
            set helping 1
        else if test $args = 0; and contains -- $word (${fn}_words "$cmd" | string replace -r '\\t.*' '')
            set cmd (string trim -- "$cmd $word")
        else
            set args (math $args + 1)
        end
        set i (math $i + 1)
    end

    set -l current (commandline -ct)
    if test $ended = 0 -a $helping = 0 -a (count $tokens) -gt 0
        set -l kind (${fn}_value "$cmd" $tokens[-1])
        if test -n "$kind"
            ${fn}_values $kind $project
            return
        end
    end
    if test $ended = 0 -a $helping = 0; and string match -q -- '--*=*' $current
        set -l flag (string split -m 1 = -- $current)
        set -l kind (${fn}_value "$cmd" $flag[1])
        if test -n "$kind"
            ${fn}_values $kind $project | string replace -r -- '^' "$flag[1]="
        end
        return
    end
    if test $ended = 0 -a $helping = 0; and string match -q -- '-*' $current
        ${fn}_flags "$cmd"
        return
    end
    if test $args = 0
        set -l words (${fn}_words "$cmd")
        if test (count $words) -gt 0
            printf '%s\\n' $words
            return
        end
    end
    test $helping = 1; and return
    set -l kind (${fn}_arg "$cmd" (math $args + 1))
    test -n "$kind"; and ${fn}_values $kind $project
end

complete -c ${bin} -e
complete -c ${bin} -f -a '(${fn}_complete)'
`;
}

/** A value kind as the script's lookup functions answer it. */
function valueWord(value: ValueSpec): string {
  return value.kind === 'choice' ? `:${value.options.join(' ')}` : `@${value.kind}`;
}

/** A fish single-quoted string (only \\ and ' are special in it). */
function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}
