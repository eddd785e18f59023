import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';

/** Flags and arguments several commands share, declared once. */
export const projectFlag = Flags.string({ char: 'p', description: 'Project name (default: the registered repository you are in).' });
export const yesFlag = Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.', default: false });
export const taskIdArg = Args.string({ ignoreStdin: true, description: "Task id (default: the task whose worktree you are in)." });
export const requiredTaskIdArg = Args.string({ ignoreStdin: true, description: 'Task id.', required: true });
