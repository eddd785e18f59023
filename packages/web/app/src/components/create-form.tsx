import { useEffect, useRef, useState } from 'preact/hooks';
import type { CreateTaskRequest, CreateTaskResult, SessionInfo } from '../../../src/protocol';
import { createTask, errorLine } from '../api';
import { inlineText } from '../shown-text';

export interface CreateFormProps {
  readonly session: SessionInfo;
  readonly onCreated: (result: CreateTaskResult) => void;
  readonly onClose: () => void;
}

/**
 * The New task form (the dashboard's `c`): project, summary, optional branch, harness (the
 * configured default first), and whether its agent starts now or it waits for a person's review.
 * A refusal stays in the form with what was typed.
 */
export function CreateForm({ session, onCreated, onClose }: CreateFormProps) {
  const [project, setProject] = useState(session.project ?? session.projects[0] ?? '');
  const [summary, setSummary] = useState('');
  const [branch, setBranch] = useState('');
  const [harness, setHarness] = useState<string>('');
  const [status, setStatus] = useState<CreateTaskRequest['status']>('pending');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const summaryField = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    summaryField.current?.focus();
    const key = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [onClose]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    if (!summary.trim()) {
      setError('E_INPUT: a task needs a summary');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const result = await createTask({ project, summary: summary.trim(), branch: branch.trim(), harness: harness === '' ? null : harness, status });
      onCreated(result);
    } catch (failure) {
      setError(errorLine(failure));
      setBusy(false);
    }
  };

  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && !busy && onClose()}>
      <form class="dialog create-form" role="dialog" aria-modal="true" aria-labelledby="create-title" data-testid="create-form" onSubmit={submit}>
        <h2 id="create-title">New task</h2>
        <label class="field">
          <span>Project</span>
          <select value={project} data-testid="create-project" onChange={(e) => setProject((e.target as HTMLSelectElement).value)} disabled={session.project !== null && session.projects.length <= 1}>
            {session.projects.map((name) => (
              <option key={name} value={name}>
                {inlineText(name)}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Summary</span>
          <textarea
            ref={summaryField}
            rows={3}
            value={summary}
            placeholder="What should the agent do?"
            data-testid="create-summary"
            onInput={(e) => setSummary((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) void submit(e);
            }}
          />
        </label>
        <label class="field">
          <span>
            Branch <em class="muted">optional — made from the summary when empty</em>
          </span>
          <input type="text" value={branch} placeholder="fix-login-redirect" spellcheck={false} autocomplete="off" data-testid="create-branch" onInput={(e) => setBranch((e.target as HTMLInputElement).value)} />
        </label>
        <label class="field">
          <span>Harness</span>
          <select value={harness} data-testid="create-harness" onChange={(e) => setHarness((e.target as HTMLSelectElement).value)}>
            <option value="">default (configured)</option>
            {session.harnesses.map((name) => (
              <option key={name} value={name}>
                {inlineText(name)}
              </option>
            ))}
          </select>
        </label>
        <fieldset class="field choice">
          <legend>Start</legend>
          <label>
            <input type="radio" name="create-status" value="pending" checked={status === 'pending'} data-testid="create-status-pending" onChange={() => setStatus('pending')} />
            <span>
              <strong>Start now</strong> <em class="muted">an agent starts working on it</em>
            </span>
          </label>
          <label>
            <input type="radio" name="create-status" value="reviewing" checked={status === 'reviewing'} data-testid="create-status-reviewing" onChange={() => setStatus('reviewing')} />
            <span>
              <strong>For review</strong> <em class="muted">no agent: it waits for a person's review</em>
            </span>
          </label>
        </fieldset>
        {error ? (
          <p class="form-error" role="alert" data-testid="create-error">
            {inlineText(error)}
          </p>
        ) : null}
        <div class="dialog-buttons">
          <button type="button" class="btn" data-testid="create-cancel" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" class="btn primary" data-testid="create-submit" disabled={busy || project === ''}>
            {busy ? 'Creating…' : 'Create task'}
          </button>
        </div>
      </form>
    </div>
  );
}
