import { useInput, type Key } from 'ink';
import { useCallback, useRef } from 'react';

/**
 * `useInput` with the handler of the latest render: ink re-subscribes a new handler only in an
 * effect, so a key typed right after another would otherwise reach the previous render's handler
 * (and act on the previous selection).
 */
export function useKeys(handler: (input: string, key: Key) => void, isActive = true): void {
  const latest = useRef(handler);
  latest.current = handler;
  const stable = useCallback((input: string, key: Key) => latest.current(input, key), []);
  useInput(stable, { isActive });
}
