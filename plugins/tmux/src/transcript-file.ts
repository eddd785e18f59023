import { closeSync, constants, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

// O_NOFOLLOW: a link put where the transcript goes is refused, never written through.
const FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW;

/**
 * One agent spawn's transcript on disk: appended to until it reaches the cap, then moved to
 * `<file>.1` (replacing the older part) and begun again, so one spawn never takes more than twice
 * the cap. Readable by the user only: it holds whatever the agent printed (tokens, keys).
 * Node builtins only: it runs inside the agent wrapper.
 */
export class TranscriptFile {
  private fd: number;
  private size: number;

  constructor(
    readonly file: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.fd = openSync(file, FLAGS, 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.size >= this.maxBytes) {
        closeSync(this.fd);
        renameSync(this.file, `${this.file}.1`);
        this.fd = openSync(this.file, FLAGS, 0o600);
        this.size = 0;
      }
      const written = writeSync(this.fd, chunk, offset, Math.min(chunk.length - offset, this.maxBytes - this.size));
      this.size += written;
      offset += written;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
