import { useState } from 'preact/hooks';
import type { PullRequestDetail } from '../../../src/protocol';
import { getJson } from '../api';
import { useResource } from '../hooks/use-resource';
import { taskPath } from '../route';
import { inlineText, safeHref } from '../shown-text';

const CHECK_MARKS: Readonly<Record<string, string>> = { success: '✓', failure: '✗', cancelled: '✗', pending: '…', skipped: '–', neutral: '–' };

/** The pull request as the SCM reads it now: its state, link and checks. */
export function PrView({ project, id, revision }: { readonly project: string; readonly id: string; readonly revision: number }) {
  const [again, setAgain] = useState(0);
  const pr = useResource<PullRequestDetail>((signal) => getJson<PullRequestDetail>(`${taskPath({ project, id })}/pr`, signal), [project, id, revision, again]);
  const value = pr.value;
  const href = value?.url ? safeHref(value.url) : null;
  return (
    <section class="pr-view" data-testid="pr-view">
      <div class="tab-toolbar">
        {value?.state ? (
          <span class={`pr-state pr-${value.state}`} data-testid="pr-state">
            {inlineText(value.state)}
          </span>
        ) : null}
        {href ? (
          <a href={href} target="_blank" rel="noopener noreferrer" class="pr-link" data-testid="pr-url">
            {inlineText(href)}
          </a>
        ) : value?.url ? (
          <span class="pr-link">{inlineText(value.url)}</span>
        ) : null}
        <span class="spacer" />
        <button type="button" class="btn small" onClick={() => setAgain((n) => n + 1)} disabled={pr.state === 'loading'}>
          {pr.state === 'loading' ? 'Reading…' : 'Refresh'}
        </button>
      </div>
      {pr.state === 'failed' ? <p class="banner banner-error">{inlineText(pr.error)}</p> : null}
      {value?.error ? <p class="banner banner-warn">{inlineText(value.error)}</p> : null}
      {value && !value.url && !value.error ? <p class="empty">No pull request yet: “Create PR” opens one.</p> : null}
      {value?.checks ? (
        value.checks.length === 0 ? (
          <p class="empty">No checks.</p>
        ) : (
          <ul class="checks">
            {value.checks.map((check, i) => {
              const link = check.url ? safeHref(check.url) : null;
              const state = inlineText(check.state);
              return (
                <li key={i} class={`check check-${check.state.replace(/[^a-z]+/gi, '-')}`} data-testid="pr-check" data-state={check.state}>
                  <span class="check-mark" aria-hidden="true">
                    {CHECK_MARKS[check.state] ?? '•'}
                  </span>
                  {link ? (
                    <a href={link} target="_blank" rel="noopener noreferrer" class="check-name">
                      {inlineText(check.name)}
                    </a>
                  ) : (
                    <span class="check-name">{inlineText(check.name)}</span>
                  )}
                  <span class="check-state">{state}</span>
                </li>
              );
            })}
          </ul>
        )
      ) : value?.url ? (
        <p class="empty">No checks reported.</p>
      ) : null}
      {!value && pr.state === 'loading' ? <p class="empty">Reading the pull request…</p> : null}
    </section>
  );
}
