#!/usr/bin/env node
import module from 'node:module';

// Node 22.1+ caches compiled code between runs (agents call orange constantly); absent on Node 20.
module.enableCompileCache?.();

const { run } = await import('../dist/main.js');
await run(import.meta.url);
