/**
 * Where things live under `$ORANGE_HOME`, and the check that refuses an unusable home with one
 * E_HOME sentence before any store trips over it.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OrangeError } from '../errors/index.js';
import { OrangePaths } from './paths.js';
import { cannotRunHere } from '../../test/fixtures.js';

let dir: string;
const undos: (() => Promise<void>)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-paths-'));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  // Writable again before removal: an immutable folder cannot be removed, even by root.
  for (const undo of undos.splice(0)) await undo();
  await rm(dir, { recursive: true, force: true });
});

/** The E_HOME refusal of `home`, or null when the home is accepted. */
async function homeError(home: string): Promise<OrangeError | null> {
  const error = await new OrangePaths(home).checkHome().then(
    () => null,
    (e: unknown) => e,
  );
  if (error !== null) expect(error).toBeInstanceOf(OrangeError);
  return error as OrangeError | null;
}

const refusal = (home: string, why: string) => `ORANGE_HOME ${home} ${why} (set ORANGE_HOME to a writable directory)`;

/**
 * Makes `folder` refuse writes by this process, or returns false where that cannot be done. Root may
 * write into any folder whatever its mode, but not into an immutable one (`chattr +i`).
 */
async function makeUnwritable(folder: string): Promise<boolean> {
  if (process.getuid?.() !== 0) {
    await chmod(folder, 0o555);
    undos.push(() => chmod(folder, 0o755));
    return true;
  }
  try {
    execFileSync('chattr', ['+i', folder], { stdio: 'ignore' });
  } catch {
    return false;
  }
  undos.push(async () => {
    execFileSync('chattr', ['-i', folder], { stdio: 'ignore' });
  });
  return true;
}

describe('OrangePaths', () => {
  it('puts every file and folder of the home at its documented place', () => {
    const paths = new OrangePaths('/srv/orange');
    expect({
      home: paths.home,
      projectsFile: paths.projectsFile,
      logFile: paths.logFile,
      workspacesDir: paths.workspacesDir,
      poolFile: paths.poolFile,
      runDir: paths.runDir,
      gatewaySocket: paths.gatewaySocket,
      peopleSocket: paths.peopleSocket,
      monitorLeaseFile: paths.monitorLeaseFile,
      outboxDir: paths.outboxDir,
      outboxEntryFile: paths.outboxEntryFile('1700000000000-abc.json'),
      outboxDeliveryLock: paths.outboxDeliveryLock,
      monitorPassFile: paths.monitorPassFile,
      tasksDir: paths.tasksDir,
      workspaceDir: paths.workspaceDir('app', 3),
      projectTasksDir: paths.projectTasksDir('app'),
      taskDir: paths.taskDir('app', 'T1'),
      agentDir: paths.agentDir('app', 'T1'),
      taskFile: paths.taskFile('app', 'T1'),
      legacyTaskFile: paths.legacyTaskFile('app', 'T1'),
      taskLockFile: paths.taskLockFile('app', 'T1'),
      taskStateFile: paths.taskStateFile('app', 'T1'),
      taskIndexFile: paths.taskIndexFile('app'),
      taskLogsDir: paths.taskLogsDir('app', 'T1'),
      transcriptFile: paths.transcriptFile('app', 'T1', 'worker', 'sp1'),
      historyFile: paths.historyFile('app', 'T1'),
      agentIdentitiesFile: paths.agentIdentitiesFile('app', 'T1'),
    }).toEqual({
      home: '/srv/orange',
      projectsFile: '/srv/orange/projects.json',
      logFile: '/srv/orange/orange.log',
      workspacesDir: '/srv/orange/workspaces',
      poolFile: '/srv/orange/workspaces/.pool.json',
      runDir: '/srv/orange/run',
      gatewaySocket: '/srv/orange/gateway/agents.sock',
      peopleSocket: '/srv/orange/run/people.sock',
      monitorLeaseFile: '/srv/orange/run/monitor.json',
      outboxDir: '/srv/orange/outbox',
      outboxEntryFile: '/srv/orange/outbox/1700000000000-abc.json',
      outboxDeliveryLock: '/srv/orange/outbox/.deliver',
      monitorPassFile: '/srv/orange/run/monitor-pass',
      tasksDir: '/srv/orange/tasks',
      workspaceDir: '/srv/orange/workspaces/app--3',
      projectTasksDir: '/srv/orange/tasks/app',
      taskDir: '/srv/orange/tasks/app/T1',
      agentDir: '/srv/orange/tasks/app/T1/agent',
      taskFile: '/srv/orange/tasks/app/T1/agent/TASK.md',
      legacyTaskFile: '/srv/orange/tasks/app/T1/TASK.md',
      taskLockFile: '/srv/orange/tasks/app/T1/task',
      taskStateFile: '/srv/orange/tasks/app/T1/state.json',
      taskIndexFile: '/srv/orange/tasks/app/.index.json',
      taskLogsDir: '/srv/orange/tasks/app/T1/logs',
      transcriptFile: '/srv/orange/tasks/app/T1/logs/worker-sp1.log',
      historyFile: '/srv/orange/tasks/app/T1/history.jsonl',
      agentIdentitiesFile: '/srv/orange/tasks/app/T1/identities.json',
    });
  });

  it('gives the listing index the same three task files as the single-path helpers', () => {
    const paths = new OrangePaths('/srv/orange');
    expect(paths.taskFiles('app', 'T1')).toEqual({
      task: paths.taskFile('app', 'T1'),
      state: paths.taskStateFile('app', 'T1'),
      history: paths.historyFile('app', 'T1'),
    });
  });

  it('takes the home from the environment given, and from the process environment by default', () => {
    expect(OrangePaths.fromEnv({ ORANGE_HOME: '/srv/orange' }).home).toBe('/srv/orange');
    vi.stubEnv('ORANGE_HOME', join(dir, 'from-process'));
    expect(OrangePaths.fromEnv().home).toBe(join(dir, 'from-process'));
  });
});

describe('checkHome', () => {
  it('accepts an existing writable home', async () => {
    expect(await homeError(dir)).toBeNull();
  });

  it('accepts a missing home whose nearest existing ancestor is a writable directory (it is created when first written)', async () => {
    expect(await homeError(join(dir, 'not', 'yet', 'orange'))).toBeNull();
  });

  it('refuses a home that is a file, naming the home', async () => {
    const home = join(dir, 'home-file');
    await writeFile(home, 'not a directory\n');
    const error = await homeError(home);
    expect(error).toMatchObject({ code: 'E_HOME', message: refusal(home, 'is not a directory'), details: { home } });
  });

  it('refuses a home below a file', async () => {
    const file = join(dir, 'home-file');
    await writeFile(file, 'not a directory\n');
    const home = join(file, 'orange');
    const error = await homeError(home);
    expect(error).toMatchObject({ code: 'E_HOME', message: refusal(home, 'is not a directory: a part of its path is a file'), details: { home } });
  });

  it('refuses a home that cannot be looked at for another reason, naming the error code', async () => {
    // A name longer than any file system allows: stat fails with neither ENOENT nor ENOTDIR.
    const home = join(dir, 'o'.repeat(300));
    const error = await homeError(home);
    expect(error).toMatchObject({ code: 'E_HOME', message: refusal(home, 'cannot be used (ENAMETOOLONG)'), details: { home } });
  });

  it('refuses a home that is not writable, and a missing home whose nearest ancestor is not', async (context) => {
    const home = join(dir, 'read-only');
    await mkdir(home);
    if (!(await makeUnwritable(home))) cannotRunHere(context, `cannot make ${home} unwritable as root: chattr +i failed (a filesystem without immutable files?)`);
    const error = await homeError(home);
    expect(error).toMatchObject({ code: 'E_HOME', message: refusal(home, 'is not writable'), details: { home } });
    const below = join(home, 'orange');
    const belowError = await homeError(below);
    expect(belowError).toMatchObject({ code: 'E_HOME', message: refusal(below, `cannot be created: ${home} is not writable`), details: { home: below } });
  });

  it('checks once per instance: the answer given first is the answer kept', async () => {
    const home = join(dir, 'orange');
    const paths = new OrangePaths(home);
    const first = paths.checkHome();
    expect(paths.checkHome()).toBe(first);
    await expect(first).resolves.toBeUndefined();
    // Made unusable afterwards: this instance does not look again (a fresh one would refuse it).
    await writeFile(home, 'not a directory\n');
    await expect(paths.checkHome()).resolves.toBeUndefined();
    await expect(new OrangePaths(home).checkHome()).rejects.toMatchObject({ code: 'E_HOME' });
  });
});
