import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';

/** Where a function was written: the file and the line (from 1). */
export interface SourcePlace {
  readonly file: string;
  readonly line: number;
}

/**
 * Finds the file that defines a function, through V8's own record of it (the inspector's
 * `[[FunctionLocation]]`), so `orange doctor` can say which file provides each plugin, gate,
 * action and harness — also for plugin objects written by hand, which carry no trace of their
 * module. jiti runs a config's modules under their own file names, so those are found as written.
 * Only `orange doctor` opens one: enabling the debugger lists every script loaded so far.
 */
export class FunctionSources {
  private constructor(
    private readonly session: Session,
    private readonly scripts: ReadonlyMap<string, string>,
  ) {}

  static async open(): Promise<FunctionSources> {
    const session = new Session();
    session.connect();
    const scripts = new Map<string, string>();
    session.on('Debugger.scriptParsed', (message) => {
      scripts.set(message.params.scriptId, message.params.url);
    });
    await session.post('Debugger.enable');
    return new FunctionSources(session, scripts);
  }

  /** The place of `fn`, or null when V8 cannot say (a native or bound function). */
  async locate(fn: unknown): Promise<SourcePlace | null> {
    if (typeof fn !== 'function') return null;
    const key = `__orangeDoctorFunction${Math.random().toString(36).slice(2)}`;
    const global = globalThis as Record<string, unknown>;
    global[key] = fn;
    try {
      const { result } = await this.session.post('Runtime.evaluate', { expression: `globalThis[${JSON.stringify(key)}]` });
      if (result.objectId === undefined) return null;
      const { internalProperties } = await this.session.post('Runtime.getProperties', { objectId: result.objectId, ownProperties: true });
      const location = internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value as
        | { scriptId: string; lineNumber: number }
        | undefined;
      const url = location ? this.scripts.get(location.scriptId) : undefined;
      if (!location || !url) return null;
      return { file: url.startsWith('file://') ? fileURLToPath(url) : url, line: location.lineNumber + 1 };
    } catch {
      return null;
    } finally {
      delete global[key];
    }
  }

  close(): void {
    this.session.disconnect();
  }
}
