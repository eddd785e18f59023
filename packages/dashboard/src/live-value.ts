import type { LiveValue } from './components/app.js';

/** A value the dashboard learns after it is drawn (e.g. how Enter attaches), as a `LiveValue`. */
export class SettableValue<T> implements LiveValue<T> {
  private readonly listeners = new Set<() => void>();

  constructor(private value: T) {}

  get = (): T => this.value;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Replaces the value and tells every subscriber. */
  set(value: T): void {
    if (value === this.value) return;
    this.value = value;
    for (const listener of this.listeners) listener();
  }
}
