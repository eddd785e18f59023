import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { OrangeError } from '../errors/index.js';
import { writeFileAtomic } from './atomic.js';
import { withLock } from './lock.js';
import { assertBranchName, assertProjectName, projectNameProblem } from './names.js';
import type { OrangePaths } from './paths.js';

export const ProjectSchema = z.object({
  name: z.string().refine((n) => projectNameProblem(n) === null, { message: 'is not a valid project name' }),
  path: z.string().refine(isAbsolute, { message: 'must be an absolute path' }),
  default_branch: z.string().min(1),
  pool_size: z.number().int().positive().max(64).default(2),
  workflow: z.string().optional(),
});

export type Project = z.output<typeof ProjectSchema>;
export type ProjectInput = z.input<typeof ProjectSchema>;

const ProjectsFileSchema = z.array(ProjectSchema);

/** `projects.json`: the registered repositories. Writes are atomic and locked. */
export class ProjectStore {
  constructor(private readonly paths: OrangePaths) {}

  async list(): Promise<Project[]> {
    let text: string;
    try {
      text = await readFile(this.paths.projectsFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new OrangeError('E_CONFIG', `${this.paths.projectsFile} is not valid JSON`);
    }
    const parsed = ProjectsFileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new OrangeError('E_CONFIG', `${this.paths.projectsFile}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`);
    }
    return parsed.data;
  }

  async get(name: string): Promise<Project> {
    const project = (await this.list()).find((p) => p.name === name);
    if (!project) throw new OrangeError('E_PROJECT_NOT_FOUND', `no project named "${name}" (see orange project list)`);
    return project;
  }

  /** The project whose repository contains `dir` (deepest match), if any. */
  async findByPath(dir: string): Promise<Project | undefined> {
    const projects = await this.list();
    const matches = projects.filter((p) => dir === p.path || dir.startsWith(`${p.path}/`));
    return matches.sort((a, b) => b.path.length - a.path.length)[0];
  }

  async add(input: ProjectInput): Promise<Project> {
    assertProjectName(input.name);
    assertBranchName(input.default_branch);
    const project = ProjectSchema.parse(input);
    return this.mutate((projects) => {
      if (projects.some((p) => p.name === project.name)) {
        throw new OrangeError('E_PROJECT_EXISTS', `a project named "${project.name}" is already registered`, { field: 'name' });
      }
      if (projects.some((p) => p.path === project.path)) {
        throw new OrangeError('E_PROJECT_EXISTS', `${project.path} is already registered`, { field: 'path' });
      }
      return { projects: [...projects, project], result: project };
    });
  }

  async update(name: string, patch: Partial<Omit<ProjectInput, 'name' | 'path'>>): Promise<Project> {
    if (patch.default_branch !== undefined) assertBranchName(patch.default_branch);
    return this.mutate((projects) => {
      const index = projects.findIndex((p) => p.name === name);
      if (index < 0) throw new OrangeError('E_PROJECT_NOT_FOUND', `no project named "${name}" (see orange project list)`);
      const parsed = ProjectSchema.safeParse({ ...projects[index], ...patch });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new OrangeError('E_INVALID_INPUT', `project ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`);
      }
      const next = [...projects];
      next[index] = parsed.data;
      return { projects: next, result: parsed.data };
    });
  }

  async remove(name: string): Promise<Project> {
    return this.mutate((projects) => {
      const project = projects.find((p) => p.name === name);
      if (!project) throw new OrangeError('E_PROJECT_NOT_FOUND', `no project named "${name}" (see orange project list)`);
      return { projects: projects.filter((p) => p.name !== name), result: project };
    });
  }

  private async mutate<T>(fn: (projects: Project[]) => { projects: Project[]; result: T }): Promise<T> {
    return withLock(this.paths.projectsFile, 'projects.json', async () => {
      const { projects, result } = fn(await this.list());
      await writeFileAtomic(this.paths.projectsFile, `${JSON.stringify(projects, null, 2)}\n`);
      return result;
    });
  }
}
