/** Every file path in a manifest's exports (any condition), bin, main and types, each once. */
export function entryFiles(manifest: Record<string, unknown>): string[];
