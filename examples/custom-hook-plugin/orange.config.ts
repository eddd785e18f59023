// The team config of docs/writing-a-plugin.md, step 5: the three plugins of this package, loaded
// from their source files, and the "minimal" workflow with the tests-pass gate and a format action.
// Run `orange doctor` here to see each of them with the file that provides it.
import { defineConfig } from '@orange/core';
import { minimal } from '../workflows/minimal.js';
import { runCommand } from './src/run-command.js';
import { testsPass } from './src/tests-pass.js';
import { transitionLog } from './src/transition-log.js';

const tested = {
  ...minimal,
  name: 'tested',
  transitions: minimal.transitions.map((t) => (t.from === 'working' && t.to === 'reviewing' ? { ...t, gate: 'tests-pass', hooks: ['format'] } : t)),
};

export default defineConfig({
  plugins: [transitionLog(), testsPass({ command: ['npm', 'test'] }), runCommand({ action: 'format', command: ['npm', 'run', 'format'] })],
  workflows: [tested],
  workflow: 'tested',
});
