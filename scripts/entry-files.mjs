// The files a package.json points at, for the prepack guard and the pack test.

/** Every file path in a manifest's exports (any condition), bin, main and types, each once. */
export function entryFiles(manifest) {
  const files = [];
  const walk = (value) => {
    if (typeof value === 'string') files.push(value);
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) walk(inner);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  for (const field of ['main', 'types']) if (typeof manifest[field] === 'string') files.push(manifest[field]);
  return [...new Set(files)];
}
