import { readdir, readFile } from 'node:fs/promises';
import { execa } from 'execa';

/**
 * The command lines of every running process, each as its arguments joined by spaces. Linux
 * answers from /proc (no dependency on procps, which slim images lack); elsewhere `ps` does.
 */
export async function runningCommandLines(): Promise<string[]> {
  const pids = await readdir('/proc').catch(() => null);
  if (pids) {
    const lines = await Promise.all(
      pids.filter((p) => /^\d+$/.test(p)).map((pid) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')),
    );
    return lines.filter((l) => l !== '').map((l) => l.replace(/\0$/, '').split('\0').join(' '));
  }
  const ps = await execa('ps', ['-A', '-o', 'args='], { reject: false });
  if (ps.exitCode !== 0) throw new Error(`ps failed: ${String(ps.stderr || ps.message).trim()}`);
  return String(ps.stdout).split('\n');
}
