export { transitionLog, type TransitionLogOptions, type TransitionLogLine } from './transition-log.js';
export { testsPass, type TestsPassOptions } from './tests-pass.js';
export { runCommand, type RunCommandOptions } from './run-command.js';
export { fileNotifier, type FileNotifierOptions } from './file-notifier.js';
