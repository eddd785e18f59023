import { readdirSync, readlinkSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendHistory, ledgerStatus, readHistory, type HistoryEvent } from './history.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'orange-history-')));
  file = join(dir, 'history.jsonl');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const T = '2026-01-01T00:00:00.000Z';
const event = (type: string, fields: Record<string, unknown> = {}): HistoryEvent => ({ type, timestamp: T, ...fields });

describe('appendHistory', () => {
  it('writes one line per event, and nothing else, from an empty ledger on', async () => {
    const created = await appendHistory(file, { type: 'task.created', status: 'planning', timestamp: T });
    const changed = await appendHistory(file, { type: 'status.changed', from: 'planning', to: 'working', timestamp: T });
    expect(created).toEqual({ type: 'task.created', status: 'planning', timestamp: T });
    expect(await readFile(file, 'utf8')).toBe(`${JSON.stringify(created)}\n${JSON.stringify(changed)}\n`);
  });

  it('stamps an event given no timestamp with the time of the append', async () => {
    const before = Date.now();
    const note = await appendHistory(file, { type: 'note' });
    expect(Date.parse(note.timestamp)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(note.timestamp)).toBeLessThanOrEqual(Date.now());
    expect(await readHistory(file)).toEqual([note]);
  });

  it('starts a new line after a torn last line (a writer killed mid-append), so the event is not lost with it', async () => {
    await writeFile(file, '{"type":"hook.fai');
    const changed = await appendHistory(file, { type: 'status.changed', from: 'planning', to: 'working', timestamp: T });
    expect(await readFile(file, 'utf8')).toBe(`{"type":"hook.fai\n${JSON.stringify(changed)}\n`);
    expect(await readHistory(file)).toEqual([changed]);
  });

  it.runIf(process.platform === 'linux')('leaves no descriptor open on the ledger', async () => {
    await appendHistory(file, { type: 'note' });
    const open = readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
    expect(open).toEqual([]);
  });
});

describe('readHistory', () => {
  it('reads an absent ledger as no events', async () => {
    expect(await readHistory(file)).toEqual([]);
  });

  it('skips blank lines and a torn line, keeping every whole event in order', async () => {
    const lines = [event('task.created', { status: 'planning' }), event('note', { reason: 'x' })];
    await writeFile(file, `${JSON.stringify(lines[0])}\n\n   \n${JSON.stringify(lines[1])}\n`);
    await appendFile(file, '{"type":"status.cha');
    expect(await readHistory(file)).toEqual(lines);
  });

  it('rethrows a failure other than a missing ledger', async () => {
    await mkdir(file);
    await expect(readHistory(file)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

describe('ledgerStatus', () => {
  it('is the `to` of the last status change, or else the status the task was created in', () => {
    expect(ledgerStatus([])).toBeNull();
    expect(ledgerStatus([event('task.created', { status: 'planning' })])).toBe('planning');
    expect(ledgerStatus([event('task.created', { status: 'planning' }), event('status.changed', { from: 'planning', to: 'working' })])).toBe('working');
    expect(
      ledgerStatus([
        event('task.created', { status: 'planning' }),
        event('status.changed', { from: 'planning', to: 'working' }),
        event('status.changed', { from: 'working', to: 'agent-review' }),
        event('note'),
      ]),
    ).toBe('agent-review');
  });

  it('passes over events of other types, even with a `to` or a `status` of their own', () => {
    const events = [
      event('task.created', { status: 'planning' }),
      event('status.changed', { from: 'planning', to: 'working' }),
      event('status.repaired', { from: 'reviewing', to: 'working-by-hand' }),
      event('hook.failed', { status: 'failed' }),
    ];
    expect(ledgerStatus(events)).toBe('working');
  });

  it('passes over a status change or a creation without a status string', () => {
    expect(ledgerStatus([event('task.created', { status: 'planning' }), event('status.changed', { from: 'planning' }), event('status.changed', { to: 3 })])).toBe('planning');
    expect(ledgerStatus([event('task.created', { status: null })])).toBeNull();
    expect(ledgerStatus([event('task.created')])).toBeNull();
  });
});
