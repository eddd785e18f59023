// Preloaded (`node -r`) by start-up.test.ts: writes every module file the process loaded, one
// per line, to $ORANGE_TEST_MODULE_TRACE when it exits: ES modules through a loader hook,
// CommonJS ones from require's cache.
const { appendFileSync } = require('node:fs');
const { register } = require('node:module');
const { pathToFileURL } = require('node:url');

const trace = process.env.ORANGE_TEST_MODULE_TRACE;
const hook = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(trace)}, url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, pathToFileURL(__filename));
process.on('exit', () => {
  const files = Object.keys(require.cache).filter((f) => f !== __filename);
  if (files.length > 0) appendFileSync(trace, files.map((f) => `${pathToFileURL(f).href}\n`).join(''));
});
