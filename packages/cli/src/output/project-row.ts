import { inlineText, type Project } from '@orange/core';

/** A project in one safe line: where it is, what it merges into, how many tasks run at once. */
export function projectRow(project: Project): string {
  return inlineText(`${project.path} (branch ${project.default_branch}, pool ${project.pool_size}${project.workflow ? `, workflow ${project.workflow}` : ''})`);
}
