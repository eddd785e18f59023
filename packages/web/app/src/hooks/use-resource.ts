import { useEffect, useState } from 'preact/hooks';
import { errorLine } from '../api';

/** A value read from the server: loading, read, or failed with its status line. */
export type Resource<T> =
  | { readonly state: 'loading'; readonly value: T | null }
  | { readonly state: 'ready'; readonly value: T }
  | { readonly state: 'failed'; readonly value: T | null; readonly error: string; readonly code: string | null };

/**
 * Reads `load` when a key changes (a task's revision, a transcript picked), keeping the last value
 * on screen while the next one loads; a read overtaken by a newer one is dropped.
 */
export function useResource<T>(load: ((signal: AbortSignal) => Promise<T>) | null, keys: readonly unknown[]): Resource<T> {
  const [resource, setResource] = useState<Resource<T>>({ state: 'loading', value: null });
  useEffect(() => {
    if (!load) return;
    const controller = new AbortController();
    setResource((previous) => ({ state: 'loading', value: previous.value }));
    load(controller.signal).then(
      (value) => {
        if (!controller.signal.aborted) setResource({ state: 'ready', value });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : null;
        setResource((previous) => ({ state: 'failed', value: previous.value, error: errorLine(error), code }));
      },
    );
    return () => controller.abort();
    // The caller names what the read depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, keys);
  return resource;
}
