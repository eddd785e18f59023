// Every project runs the custom "minimal" workflow: working → reviewing → done.
import { defineConfig } from '@orange/core';
import { minimal } from '../workflows/minimal.js';

export default defineConfig({
  // Registers the workflow by its name ...
  workflows: [minimal],
  // ... and makes it the default for projects that name none in projects.json.
  workflow: 'minimal',
});
