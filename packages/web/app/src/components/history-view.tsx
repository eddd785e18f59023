import type { HistoryLine } from '../../../src/protocol';
import { eventTime, historyEntry } from '../history-text';
import { useNow } from '../hooks/use-now';

/** The task's history (`history.jsonl`) as a timeline, newest first: type, time, the move, then the event's fields. */
export function HistoryView({ history }: { readonly history: readonly HistoryLine[] }) {
  const now = useNow(60_000);
  if (history.length === 0) return <p class="empty">No history yet.</p>;
  const entries = history.map(historyEntry).reverse();
  return (
    <ol class="timeline" data-testid="history">
      {entries.map((entry, i) => (
        <li key={i} class={`event event-${entry.type.replace(/[^a-z0-9]+/gi, '-')}`} data-testid="history-event" data-type={entry.type}>
          <time class="event-time" dateTime={entry.timestamp} title={entry.timestamp}>
            {eventTime(entry.timestamp, now)}
          </time>
          <span class="event-dot" aria-hidden="true" />
          <div class="event-body">
            <div class="event-head">
              <span class="event-type">{entry.type}</span>
              {entry.headline ? <span class="event-headline">{entry.headline}</span> : null}
            </div>
            {entry.fields.length > 0 ? (
              <dl class="event-fields">
                {entry.fields.map(([key, value]) => (
                  <div key={key} class="event-field">
                    <dt>{key}</dt>
                    <dd>{value}</dd>
                  </div>
                ))}
              </dl>
            ) : null}
          </div>
        </li>
      ))}
    </ol>
  );
}
