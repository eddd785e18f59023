#!/usr/bin/env node
'use strict';
// Everything is in dist/entry.cjs (src/startup/entry.ts).
require('../dist/entry.cjs').main(__filename);
