// Dependency-free: the agent wrapper (its own small bundle) uses these too.

/**
 * tmux reads an argument that ends in `;` as a command separator, even inside an argument array;
 * `\;` at the end stands for a literal `;` (and tmux turns the `\` we add back into the original text).
 */
export function escapeTmuxArgument(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

/** `-c` (start directory) is expanded as a tmux format, so a literal `#` must be doubled. */
export function escapeTmuxFormat(text: string): string {
  return text.replace(/#/g, '##');
}
