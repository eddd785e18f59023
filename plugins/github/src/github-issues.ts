import { OrangeError, type IssueTracker, type Project, type TrackedIssue } from '@orange/core';
import type { GhCli } from './gh.js';

/** `123` or `#123`. */
const NUMBER = /^#?([1-9]\d{0,9})$/;
/** `https://github.com/acme/app/issues/123` (any host, for GitHub Enterprise). */
const URL_FORM = /^https:\/\/[^/\s]+\/([\w.-]+)\/([\w.-]+)\/issues\/([1-9]\d{0,9})\/?$/;

/** The tracker slot on GitHub issues, read with `gh issue view`. */
export class GithubIssues implements IssueTracker {
  readonly name = 'github';

  constructor(private readonly gh: GhCli) {}

  /** Reads issue `ref` (a number, `#123`, or an issue URL) of the project's repository. */
  async issue(ref: string, project: Project): Promise<TrackedIssue> {
    const text = ref.trim();
    const number = NUMBER.exec(text);
    const url = number ? null : URL_FORM.exec(text);
    if (!number && !url) {
      throw new OrangeError('E_INVALID_INPUT', `--issue takes a GitHub issue number (123 or #123) or an issue URL, not ${JSON.stringify(text.slice(0, 60))}`);
    }
    const target = number ? (number[1] as string) : text;
    const stdout = await this.gh.run(project.path, ['issue', 'view', target, '--json', 'number,title,body,url'], `reading issue ${number ? `#${target}` : target}`);
    let parsed: { number?: unknown; title?: unknown; body?: unknown; url?: unknown };
    try {
      parsed = JSON.parse(stdout) as typeof parsed;
    } catch {
      throw new OrangeError('E_SCM', `gh issue view ${target} did not print JSON`);
    }
    if (typeof parsed.title !== 'string' || typeof parsed.number !== 'number') throw new OrangeError('E_SCM', `gh issue view ${target} printed no issue title or number`);
    return {
      // A URL may name another repository: owner/repo#N closes it from this one's pull request.
      ref: url ? `${url[1]}/${url[2]}#${parsed.number}` : `#${parsed.number}`,
      url: typeof parsed.url === 'string' ? parsed.url : text,
      title: parsed.title,
      body: typeof parsed.body === 'string' ? parsed.body : '',
    };
  }

  closingLine(issue: Pick<TrackedIssue, 'ref'>): string {
    return `Closes ${issue.ref}`;
  }
}
