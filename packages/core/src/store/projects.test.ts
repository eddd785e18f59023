/**
 * `projects.json` as `orange project add/update/remove/list` meet it: what is kept, what is refused
 * with which sentence, and that a refused change leaves the file as it was.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf } from '../../test/fixtures.js';
import { OrangePaths } from './paths.js';
import { ProjectStore } from './projects.js';

let home: string;
let paths: OrangePaths;
let store: ProjectStore;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'orange-projects-'));
  paths = new OrangePaths(home);
  store = new ProjectStore(paths);
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const app = { name: 'app', path: '/repos/app', default_branch: 'main' };
const web = { name: 'web', path: '/repos/web', default_branch: 'trunk', pool_size: 4 };

async function writeProjects(json: unknown): Promise<void> {
  await writeFile(paths.projectsFile, typeof json === 'string' ? json : JSON.stringify(json));
}

describe('list', () => {
  it('is empty while no project was ever added (no projects.json)', async () => {
    expect(await store.list()).toEqual([]);
  });

  it('passes on an error other than a missing file', async () => {
    await mkdir(paths.projectsFile, { recursive: true });
    await expect(store.list()).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('refuses a projects.json that is not JSON, naming the file', async () => {
    await writeProjects('[{"name": "app",');
    const error = await errorOf(store.list());
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${paths.projectsFile} is not valid JSON` });
  });

  it('refuses a hand-edited entry with the field that is wrong', async () => {
    await writeProjects([app, { ...web, name: 'bad name' }]);
    const error = await errorOf(store.list());
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${paths.projectsFile}: 1.name is not a valid project name` });
  });

  it('refuses a relative repository path', async () => {
    await writeProjects([{ ...app, path: 'repos/app' }]);
    const error = await errorOf(store.list());
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${paths.projectsFile}: 0.path must be an absolute path` });
  });
});

describe('add and get', () => {
  it('keeps each added project, with a pool of 2 unless told, and finds each by name', async () => {
    expect(await store.add(app)).toEqual({ ...app, pool_size: 2 });
    expect(await store.add(web)).toEqual(web);
    expect(await store.list()).toEqual([{ ...app, pool_size: 2 }, web]);
    expect(await store.get('web')).toEqual(web);
    expect(await store.get('app')).toEqual({ ...app, pool_size: 2 });
    // Written for people to read: indented, one trailing newline.
    expect(await readFile(paths.projectsFile, 'utf8')).toBe(`${JSON.stringify([{ ...app, pool_size: 2 }, web], null, 2)}\n`);
  });

  it('refuses to get a project that is not registered', async () => {
    await store.add(app);
    const error = await errorOf(store.get('ghost'));
    expect(error).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', message: 'no project named "ghost" (see orange project list)' });
  });

  it('refuses a second project of the same name, and a second of the same path, naming the field', async () => {
    await store.add(app);
    const before = await readFile(paths.projectsFile, 'utf8');
    const sameName = await errorOf(store.add({ ...web, name: 'app' }));
    expect(sameName).toMatchObject({ code: 'E_PROJECT_EXISTS', message: 'a project named "app" is already registered', details: { field: 'name' } });
    const samePath = await errorOf(store.add({ ...web, path: '/repos/app' }));
    expect(samePath).toMatchObject({ code: 'E_PROJECT_EXISTS', message: '/repos/app is already registered', details: { field: 'path' } });
    expect(await readFile(paths.projectsFile, 'utf8')).toBe(before);
  });
});

describe('findByPath', () => {
  beforeEach(async () => {
    // The outer repository first: the deepest match must win whatever the order of the file.
    await store.add({ name: 'mono', path: '/repos/mono', default_branch: 'main' });
    await store.add({ name: 'mono-sub', path: '/repos/mono/packages/sub', default_branch: 'main' });
    await store.add({ name: 'mono2', path: '/repos/mono2', default_branch: 'main' });
  });

  const nameFor = async (dir: string) => (await store.findByPath(dir))?.name;

  it('finds the project of a repository’s own folder and of any folder inside it', async () => {
    expect(await nameFor('/repos/mono')).toBe('mono');
    expect(await nameFor('/repos/mono/src/lib')).toBe('mono');
    expect(await nameFor('/repos/mono2/src')).toBe('mono2');
  });

  it('prefers the deepest repository when one is inside another', async () => {
    expect(await nameFor('/repos/mono/packages/sub')).toBe('mono-sub');
    expect(await nameFor('/repos/mono/packages/sub/src')).toBe('mono-sub');
  });

  it('finds nothing for a folder outside every repository, or one that only shares a name prefix', async () => {
    expect(await nameFor('/elsewhere')).toBeUndefined();
    expect(await nameFor('/repos/mono-old/src')).toBeUndefined();
    expect(await nameFor('/repos')).toBeUndefined();
  });
});

describe('update', () => {
  beforeEach(async () => {
    await store.add(app);
    await store.add(web);
  });

  it('changes the named project only, and returns it as written', async () => {
    expect(await store.update('web', { pool_size: 8 })).toEqual({ ...web, pool_size: 8 });
    expect(await store.update('app', { default_branch: 'develop', workflow: 'quick' })).toEqual({ ...app, pool_size: 2, default_branch: 'develop', workflow: 'quick' });
    expect(await store.list()).toEqual([
      { ...app, pool_size: 2, default_branch: 'develop', workflow: 'quick' },
      { ...web, pool_size: 8 },
    ]);
  });

  it('refuses an unusable default branch by its name rule', async () => {
    const before = await readFile(paths.projectsFile, 'utf8');
    const error = await errorOf(store.update('app', { default_branch: 'release..1' }));
    expect(error).toMatchObject({ code: 'E_INVALID_NAME', message: 'branch name "release..1" must not contain ".."' });
    expect(await readFile(paths.projectsFile, 'utf8')).toBe(before);
  });

  it('refuses a value the schema does not allow, naming the field, and writes nothing', async () => {
    const before = await readFile(paths.projectsFile, 'utf8');
    const error = await errorOf(store.update('web', { pool_size: 0 }));
    expect(error).toMatchObject({ code: 'E_INVALID_INPUT', message: 'project pool_size Too small: expected number to be >0' });
    expect(await readFile(paths.projectsFile, 'utf8')).toBe(before);
  });

  it('refuses a project that is not registered', async () => {
    const error = await errorOf(store.update('ghost', { pool_size: 3 }));
    expect(error).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', message: 'no project named "ghost" (see orange project list)' });
  });
});

describe('remove', () => {
  beforeEach(async () => {
    await store.add(app);
    await store.add(web);
  });

  it('removes the named project only, and returns what it was', async () => {
    expect(await store.remove('web')).toEqual(web);
    expect(await store.list()).toEqual([{ ...app, pool_size: 2 }]);
    expect(await store.remove('app')).toEqual({ ...app, pool_size: 2 });
    expect(await store.list()).toEqual([]);
  });

  it('refuses a project that is not registered and leaves the others', async () => {
    const error = await errorOf(store.remove('ghost'));
    expect(error).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', message: 'no project named "ghost" (see orange project list)' });
    expect((await store.list()).map((p) => p.name)).toEqual(['app', 'web']);
  });
});
