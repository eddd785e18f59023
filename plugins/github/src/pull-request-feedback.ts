import { OrangeError, type PullRequestCheck, type PullRequestFeedback, type PullRequestReview, type PullRequestReviewComment, type PullRequestState } from '@orange/core';

/** The `gh pr view --json` fields the feedback is read from (state and url too: one call serves the sync). */
export const FEEDBACK_FIELDS = 'state,url,headRefOid,reviewDecision,statusCheckRollup,latestReviews';

/** owner, repo and number of a pull request URL (`https://github.com/acme/app/pull/7`). */
export function pullRequestCoordinates(url: string): { owner: string; repo: string; number: number } | null {
  const match = /^https:\/\/[^/\s]+\/([\w.-]+)\/([\w.-]+)\/pull\/(\d+)\/?$/.exec(url);
  return match ? { owner: match[1] as string, repo: match[2] as string, number: Number(match[3]) } : null;
}

type Raw = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** One entry of `statusCheckRollup`: a check run (GitHub Actions, apps) or a commit status. */
export function parseCheck(raw: Raw, headSha: string): PullRequestCheck {
  if (raw.__typename === 'StatusContext' || 'context' in raw) {
    const state = str(raw.state).toUpperCase();
    const url = str(raw.targetUrl) || null;
    return {
      name: str(raw.context) || 'status',
      state: state === 'SUCCESS' ? 'success' : state === 'FAILURE' || state === 'ERROR' ? 'failure' : 'pending',
      url,
      runId: url ?? `${str(raw.context)}@${headSha}`,
    };
  }
  const status = str(raw.status).toUpperCase();
  const conclusion = str(raw.conclusion).toUpperCase();
  const url = str(raw.detailsUrl) || null;
  let state: PullRequestCheck['state'];
  if (status !== 'COMPLETED') state = 'pending';
  else if (conclusion === 'SUCCESS' || conclusion === 'NEUTRAL') state = 'success';
  else if (conclusion === 'SKIPPED') state = 'skipped';
  else if (conclusion === 'CANCELLED') state = 'cancelled';
  else state = 'failure';
  const name = [str(raw.workflowName), str(raw.name)].filter(Boolean).join(' / ') || 'check';
  return { name, state, url, runId: url ?? `${name}@${str(raw.startedAt) || headSha}` };
}

const REVIEW_STATES: Record<string, PullRequestReview['state']> = {
  APPROVED: 'approved',
  CHANGES_REQUESTED: 'changes_requested',
  COMMENTED: 'commented',
  DISMISSED: 'dismissed',
};

/** A review from the REST API (`gh api repos/o/r/pulls/N/reviews`) or from `latestReviews`. */
export function parseReview(raw: Raw, comments: readonly PullRequestReviewComment[] = []): PullRequestReview | null {
  const state = REVIEW_STATES[str(raw.state).toUpperCase()];
  if (!state) return null;
  const author = (raw.user ?? raw.author) as Raw | undefined;
  return {
    id: String(raw.id ?? ''),
    author: str(author?.login) || 'someone',
    state,
    body: str(raw.body),
    comments,
    submittedAt: str(raw.submitted_at ?? raw.submittedAt),
  };
}

/** Inline review comments (`gh api repos/o/r/pulls/N/comments`) grouped by the review they belong to. */
export function commentsByReview(raw: readonly Raw[]): Map<string, PullRequestReviewComment[]> {
  const byReview = new Map<string, PullRequestReviewComment[]>();
  for (const c of raw) {
    const id = String(c.pull_request_review_id ?? '');
    const line = typeof c.line === 'number' ? c.line : typeof c.original_line === 'number' ? c.original_line : null;
    const list = byReview.get(id) ?? [];
    list.push({ path: str(c.path) || null, line, body: str(c.body) });
    byReview.set(id, list);
  }
  return byReview;
}

/** The feedback in `gh pr view --json FEEDBACK_FIELDS` output, in `state`; reviews come from `latestReviews` unless given. */
export function parseFeedback(view: Raw, state: PullRequestState, reviews?: readonly PullRequestReview[]): PullRequestFeedback {
  const headSha = str(view.headRefOid);
  const rollup = Array.isArray(view.statusCheckRollup) ? (view.statusCheckRollup as Raw[]) : [];
  const decision = str(view.reviewDecision).toUpperCase();
  const latest = Array.isArray(view.latestReviews) ? (view.latestReviews as Raw[]) : [];
  return {
    state,
    url: str(view.url),
    headSha,
    checks: rollup.map((c) => parseCheck(c, headSha)),
    reviews: reviews ?? latest.map((r) => parseReview(r)).filter((r): r is PullRequestReview => r !== null),
    reviewDecision: decision === 'APPROVED' ? 'approved' : decision === 'CHANGES_REQUESTED' ? 'changes_requested' : decision === 'REVIEW_REQUIRED' ? 'review_required' : null,
  };
}

/** Parses gh's JSON output, or says which call did not print JSON. */
export function ghJson<T>(stdout: string, what: string): T {
  try {
    return JSON.parse(stdout) as T;
  } catch {
    throw new OrangeError('E_SCM', `${what} did not print JSON`);
  }
}

/**
 * Every item of a paginated REST listing (`gh api --paginate`): gh 2.26 and later print one JSON
 * array of all pages, older versions one array per page back to back (`[…][…]`); both are read.
 */
export function ghPages<T>(stdout: string, what: string): T[] {
  const items: T[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < stdout.length; i++) {
    const c = stdout[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '[' || c === '{') {
      if (depth++ === 0) start = i;
    } else if ((c === ']' || c === '}') && --depth === 0) {
      const page = ghJson<unknown>(stdout.slice(start, i + 1), what);
      if (!Array.isArray(page)) throw new OrangeError('E_SCM', `${what} did not print a JSON array`);
      items.push(...(page as T[]));
    }
  }
  if (depth !== 0 || start === -1) throw new OrangeError('E_SCM', `${what} did not print JSON`);
  return items;
}

/** The Actions run (and job) behind a check's details URL, for `gh run view --log-failed`. */
export function actionsRun(url: string | null): { run: string; job: string | null } | null {
  const match = url ? /\/actions\/runs\/(\d+)(?:\/job\/(\d+))?/.exec(url) : null;
  return match ? { run: match[1] as string, job: match[2] ?? null } : null;
}
