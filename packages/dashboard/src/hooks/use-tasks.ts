import { useSyncExternalStore } from 'react';
import type { FeedSnapshot, TaskSource } from '../task-feed.js';

/** The one hook that owns the data: the feed's latest snapshot, re-rendering on every change. */
export function useTasks(source: TaskSource): FeedSnapshot {
  return useSyncExternalStore(
    (listener) => source.subscribe(listener),
    () => source.snapshot(),
  );
}
