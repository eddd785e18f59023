import { inertHeadings as inert, type PullRequestCheck, type PullRequestReview } from '@orange/core';

/** What goes into `## Feedback` for failing checks: each check's name, link and log tail. */
export function ciFeedback(url: string, failing: ReadonlyArray<{ check: PullRequestCheck; log: string | null }>): string {
  const parts = [`CI failed on ${url}. Fix what fails, commit and push; the checks run again.`];
  for (const { check, log } of failing) {
    parts.push(`### ${check.name}${check.url ? ` (${check.url})` : ''}`);
    parts.push(log ? `\`\`\`\n${fence(log)}\n\`\`\`` : 'No log could be read; open the link.');
  }
  return parts.join('\n\n');
}

/** What goes into `## Feedback` for a review asking for changes: its text and every inline comment. */
export function reviewFeedback(url: string, review: PullRequestReview): string {
  const parts = [`${review.author} requested changes on ${url}. Address every point, commit and push.`];
  if (review.body.trim()) parts.push(inert(review.body.trim()));
  for (const c of review.comments) {
    const where = c.path ? `${c.path}${c.line !== null ? `:${c.line}` : ''}` : 'general';
    parts.push(`- ${inert(where)}: ${inert(c.body.trim())}`);
  }
  return parts.join('\n\n');
}

/** A log must not close the fence it is shown in, nor start a section of TASK.md. */
function fence(log: string): string {
  return inert(log.replace(/```/g, "'''"));
}
