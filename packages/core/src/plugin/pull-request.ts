export type PullRequestState = 'open' | 'merged' | 'closed';

/** A check on a pull request, as the SCM reports it. */
export interface PullRequestCheck {
  readonly name: string;
  /** `pending` while queued or running; `success`, `failure`, `skipped`, `cancelled` once done. */
  readonly state: 'pending' | 'success' | 'failure' | 'skipped' | 'cancelled';
  /** Where it can be seen (a CI run's page), when known. */
  readonly url: string | null;
  /** Identifies this run of the check (a new run after a push gets a new one). */
  readonly runId: string;
}

/** One inline comment of a review. */
export interface PullRequestReviewComment {
  readonly path: string | null;
  readonly line: number | null;
  readonly body: string;
}

/** A submitted review. */
export interface PullRequestReview {
  readonly id: string;
  readonly author: string;
  readonly state: 'approved' | 'changes_requested' | 'commented' | 'dismissed';
  readonly body: string;
  readonly comments: readonly PullRequestReviewComment[];
  readonly submittedAt: string;
}

/** What a pull request says back: its state, and (for an open one) its checks and reviews at the head commit. */
export interface PullRequestFeedback {
  /** Read in the same call: the monitor and the dashboard take the state from here, not from a second one. */
  readonly state: PullRequestState;
  readonly url: string;
  readonly headSha: string;
  readonly checks: readonly PullRequestCheck[];
  readonly reviews: readonly PullRequestReview[];
  /** The overall review decision GitHub shows, or null when no review is required or given. */
  readonly reviewDecision: 'approved' | 'changes_requested' | 'review_required' | null;
}
