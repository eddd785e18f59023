/** How long `waitFor` waits, and how often it looks. */
export interface WaitOptions {
  /** The deadline, from the call (10 s unless said). */
  readonly timeoutMs?: number;
  /** The pause between two looks (50 ms unless said). */
  readonly everyMs?: number;
  /** What the timeout's message adds: the state of the world that explains it (a log, a screen). */
  readonly explain?: () => string | Promise<string>;
}

/** What `check` returned once it held: its value, never a falsy one. */
export type Held<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Polls `check` until it returns a truthy value, and returns that value. A check that throws has
 * not held yet (the file is not written, the task not created). At the deadline it throws, saying
 * what it waited for (`what`), the last error a check threw, and what `explain` says.
 */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, options: WaitOptions = {}): Promise<Held<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Held<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 50));
  }
  const threw = lastError === undefined ? '' : `; the last check threw: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
  const explained = options.explain ? `\n${await Promise.resolve(options.explain()).catch((e: unknown) => `(explain failed: ${String(e)})`)}` : '';
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${threw}${explained}`);
}
