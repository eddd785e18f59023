import { useMemo, useRef, useState } from 'preact/hooks';
import type { TaskDetail } from '../../../src/protocol';
import { transcriptText } from '../ansi';
import { getText } from '../api';
import { useResource } from '../hooks/use-resource';
import { taskPath } from '../route';
import { inlineText } from '../shown-text';

/** A recorded agent session, picked by role and spawn, as plain text (escape sequences stripped). */
export function TranscriptView({ project, id, transcripts }: { readonly project: string; readonly id: string; readonly transcripts: TaskDetail['transcripts'] }) {
  // Newest first in the picker; the newest is shown first.
  const choices = useMemo(() => [...transcripts].reverse(), [transcripts]);
  const [picked, setPicked] = useState<string | null>(null);
  const [again, setAgain] = useState(0);
  const chosen = choices.find((t) => `${t.role}/${t.spawn}` === picked) ?? choices[0] ?? null;
  const text = useResource<string>(
    chosen ? (signal) => getText(`${taskPath({ project, id })}/transcript?role=${encodeURIComponent(chosen.role)}&spawn=${encodeURIComponent(chosen.spawn)}`, signal) : null,
    [project, id, chosen?.role, chosen?.spawn, again],
  );
  const shown = useMemo(() => (text.value === null ? null : transcriptText(text.value)), [text.value]);
  const pre = useRef<HTMLPreElement>(null);
  if (!chosen) return <p class="empty" data-testid="transcript-none">No transcripts recorded yet.</p>;
  return (
    <section class="transcript-view">
      <div class="tab-toolbar">
        <label class="inline-label">
          <span>Session</span>
          <select value={`${chosen.role}/${chosen.spawn}`} data-testid="transcript-select" onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}>
            {choices.map((t, i) => (
              <option key={`${t.role}/${t.spawn}`} value={`${t.role}/${t.spawn}`}>
                {inlineText(`${t.role} · ${t.spawn}${i === 0 ? ' (latest)' : ''}`)}
              </option>
            ))}
          </select>
        </label>
        <span class="spacer" />
        <button type="button" class="btn small" onClick={() => setAgain((n) => n + 1)} disabled={text.state === 'loading'}>
          Reload
        </button>
        <button type="button" class="btn small" onClick={() => pre.current?.scrollTo({ top: 0 })}>
          Top
        </button>
        <button type="button" class="btn small" onClick={() => pre.current?.scrollTo({ top: pre.current.scrollHeight })}>
          End
        </button>
      </div>
      {text.state === 'failed' ? <p class="banner banner-error">{inlineText(text.error)}</p> : null}
      {shown === null ? (
        <p class="empty">Reading the transcript…</p>
      ) : (
        <pre ref={pre} class="transcript" data-testid="transcript">
          {shown || '(empty)'}
        </pre>
      )}
    </section>
  );
}
