/**
 * What every git call Orange makes in a task's worktree runs with (`git ...GIT_SAFETY_ARGS -C dir
 * …`), because a worktree holds what agents wrote: a repository an agent made inside it and
 * registered as a submodule has a config of its own, which git obeys when it descends into it
 * (`core.fsmonitor`, a filter: a command run as the user — from an agent in a container, an
 * escape). Submodules are not descended into, and no fsmonitor runs; settings given on the command
 * line reach the git processes git itself starts.
 */
export const GIT_SAFETY_ARGS: readonly string[] = ['-c', 'core.fsmonitor=false', '-c', 'diff.ignoreSubmodules=all', '-c', 'submodule.recurse=false'];
