import type { BoardRow, PullRequestCell } from '../../../src/protocol';
import { livenessIcon, livenessLabel, prText, warningText } from '../board-rows';
import { inlineText, safeHref } from '../shown-text';
import { statusColour } from '../status-colour';

/** The agent face: ● alive, ◌ starting, ✗ dead, ○ none. */
export function LivenessFace({ row }: { readonly row: Pick<BoardRow, 'liveness' | 'alive'> }) {
  const label = livenessLabel(row);
  return (
    <span class={`face face-${row.liveness}`} title={label} aria-label={label}>
      {livenessIcon(row.liveness)}
    </span>
  );
}

/** A status as a coloured badge. */
export function StatusBadge({ status, testId }: { readonly status: string; readonly testId?: string }) {
  return (
    <span class="status" style={{ '--c': statusColour(status) }} data-testid={testId} data-status={status}>
      {inlineText(status)}
    </span>
  );
}

/** `#12 open ✓` as a link to the pull request (when its URL is http(s)). */
export function PrBadge({ pr, testId, link = true }: { readonly pr: PullRequestCell | null; readonly testId?: string; readonly link?: boolean }) {
  if (!pr) return <span class="muted" data-testid={testId} />;
  const href = link ? safeHref(pr.url) : null;
  const checks = pr.checks === '✓' ? 'ok' : pr.checks === '✗' ? 'fail' : pr.checks === '…' ? 'pending' : 'none';
  const text = inlineText(prText(pr));
  const cls = `pr pr-${pr.state ?? 'unknown'} checks-${checks}`;
  return href ? (
    <a class={cls} href={href} target="_blank" rel="noopener noreferrer" data-testid={testId} onClick={(e) => e.stopPropagation()}>
      {text}
    </a>
  ) : (
    <span class={cls} data-testid={testId}>
      {text}
    </span>
  );
}

/** ⚠ when a hook failed or TASK.md shows forged engine fields; its reason in the tooltip. */
export function WarningMark({ row, testId }: { readonly row: Pick<BoardRow, 'attention' | 'tampered'>; readonly testId?: string }) {
  const warning = warningText(row);
  if (!warning) return null;
  const shown = inlineText(warning);
  return (
    <span class="warn" title={shown} aria-label={shown} data-testid={testId}>
      ⚠
    </span>
  );
}
