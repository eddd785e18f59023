import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSections, type Task } from '@orange/core';

const TEMPLATE_DIRS = ['.github', 'docs', '.'] as const;
const TEMPLATE_NAME = /^pull_request_template\.md$/i;

/** The repository's pull request template (GitHub's places, any letter case), or null. */
export async function findPullRequestTemplate(repo: string): Promise<string | null> {
  for (const dir of TEMPLATE_DIRS) {
    let names: string[];
    try {
      names = await readdir(join(repo, dir));
    } catch {
      continue;
    }
    const name = names.sort().find((n) => TEMPLATE_NAME.test(n));
    if (name) {
      try {
        return (await readFile(join(repo, dir, name), 'utf8')).trim();
      } catch {
        // A directory named like the template, or unreadable: keep looking.
      }
    }
  }
  return null;
}

/**
 * The PR body: the summary, the task's `## Context`, `Closes <issue>` for a task created from an
 * issue (GitHub closes it on merge), then the repository's template.
 */
export function pullRequestBody(task: Task, template: string | null, closingLine: (ref: string) => string = (ref) => `Closes ${ref}`): string {
  const parts = [task.meta.summary.trim() || task.meta.branch];
  const context = parseSections(task.body).get('Context')?.trim();
  if (context) parts.push(`## Context\n\n${context}`);
  const issue = task.meta.issue;
  if (typeof issue === 'string' && issue !== '') parts.push(closingLine(issue));
  if (template) parts.push(template);
  return `${parts.join('\n\n')}\n`;
}
