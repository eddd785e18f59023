import { useCallback, useState } from 'preact/hooks';
import type { ActionResult, BoardRow, TaskAction } from '../../../src/protocol';
import { errorLine, runAction } from '../api';
import { actionButtons, type PageAction } from '../task-actions';
import { inlineText } from '../shown-text';
import { ConfirmDialog, type Confirmation } from './confirm-dialog';
import { MarkdownView } from './markdown-view';
import type { StatusMessage } from './status-line';

export interface TaskActionsProps {
  readonly row: BoardRow;
  readonly pipeline: boolean;
  /** TASK.md's `## Questions`, or null. */
  readonly questions: string | null;
  readonly onMessage: (message: StatusMessage | null) => void;
  /** An action went through: the page reads the task again. */
  readonly onDone: (action: PageAction) => void;
}

const BUSY_TEXT: Readonly<Record<PageAction, string>> = {
  spawn: 'spawning…',
  respawn: 'restarting the agent…',
  resume: 'resuming…',
  'request-changes': 'requesting changes…',
  clarify: 'sending the answer…',
  merge: 'merging…',
  pr: 'opening the pull request…',
  'sync-pr': 'syncing the pull request…',
  cancel: 'cancelling…',
  delete: 'deleting…',
};

/**
 * Every action on the task, as buttons: the ones that apply now stand out, the others stay (muted)
 * so that the engine's refusal says why not. Merge, cancel and delete ask the server first
 * (`check-*`) and confirm what it says; request changes, answer and resume take text first.
 */
export function TaskActions({ row, pipeline, questions, onMessage, onDone }: TaskActionsProps) {
  const [busy, setBusy] = useState<PageAction | null>(null);
  // A pipeline task waiting for an answer opens with its questions and the answer box.
  const [form, setForm] = useState<PageAction | null>(() => (row.status === 'awaiting_clarification' && !row.terminal ? 'clarify' : null));
  const [question, setQuestion] = useState<{ readonly confirmation: Confirmation; readonly answer: (yes: boolean) => void } | null>(null);
  const ref = { project: row.project, id: row.id };

  const ask = useCallback(
    (confirmation: Confirmation) =>
      new Promise<boolean>((resolve) => {
        setQuestion({
          confirmation,
          answer: (yes) => {
            setQuestion(null);
            resolve(yes);
          },
        });
      }),
    [],
  );

  /** Runs one request, the status line saying that it runs, then what it did or why not. */
  const run = async (name: PageAction, action: TaskAction, quiet = false): Promise<ActionResult | null> => {
    setBusy(name);
    if (!quiet) onMessage({ kind: 'busy', text: BUSY_TEXT[name] });
    try {
      const result = await runAction(ref, action);
      if (!quiet) {
        onMessage({ kind: 'ok', text: result.message, ...(result.url ? { url: result.url } : {}) });
        onDone(name);
      }
      return result;
    } catch (error) {
      onMessage({ kind: 'error', text: errorLine(error) });
      return null;
    } finally {
      setBusy(null);
    }
  };

  const press = async (name: PageAction) => {
    switch (name) {
      case 'spawn':
      case 'respawn':
      case 'pr':
      case 'sync-pr':
        await run(name, { action: name });
        return;
      case 'request-changes':
      case 'clarify':
      case 'resume':
        setForm(form === name ? null : name);
        return;
      case 'merge': {
        const check = await run('merge', { action: 'check-merge' }, true);
        if (!check) return;
        if (check.forced) {
          const yes = await ask({
            title: 'Force-merge?',
            text: `This is a force-merge: ${inlineText(row.branch)} has not passed its review. ${check.message}`.trim(),
            ok: 'Force-merge',
            danger: true,
          });
          if (!yes) return onMessage({ kind: 'ok', text: 'merge not done' });
        }
        await run('merge', { action: 'merge', force: check.forced === true });
        return;
      }
      case 'cancel': {
        const check = await run('cancel', { action: 'check-cancel' }, true);
        if (!check) return;
        const label = row.cancel ?? 'cancel';
        const yes = await ask({ title: `${label.charAt(0).toUpperCase()}${label.slice(1)} the task?`, text: check.confirm ?? check.message, ok: label.charAt(0).toUpperCase() + label.slice(1), danger: true });
        if (!yes) return onMessage({ kind: 'ok', text: `${label} not done` });
        await run('cancel', { action: 'cancel' });
        return;
      }
      case 'delete': {
        const check = await run('delete', { action: 'check-delete' }, true);
        if (!check) return;
        const yes = await ask({ title: 'Delete the task?', text: check.confirm ?? `Delete task ${row.id} (${inlineText(row.branch)}) and its files? ${check.message}`.trim(), ok: 'Delete', danger: true });
        if (!yes) return onMessage({ kind: 'ok', text: 'delete not done' });
        await run('delete', { action: 'delete' });
        return;
      }
    }
  };

  const submitForm = async (name: PageAction, action: TaskAction) => {
    const result = await run(name, action);
    if (result) setForm(null);
  };

  const buttons = actionButtons(row, pipeline, questions !== null);
  return (
    <div class="task-actions">
      <div class="action-buttons" role="toolbar" aria-label="actions">
        {buttons.map((button) => (
          <button
            key={button.name}
            type="button"
            class={`btn action${!button.applies ? ' muted-action' : button.danger ? ' danger-outline' : button.main ? ' primary' : ''}${form === button.name ? ' open' : ''}`}
            data-testid={`action-${button.name}`}
            data-applies={button.applies ? 'true' : 'false'}
            aria-expanded={button.form ? form === button.name : undefined}
            disabled={busy !== null}
            title={button.applies ? undefined : 'does not apply now: the server will say why'}
            onClick={() => void press(button.name)}
          >
            {busy === button.name ? `${button.label}…` : button.label}
          </button>
        ))}
      </div>
      {form === 'request-changes' ? <ChangesForm busy={busy !== null} onCancel={() => setForm(null)} onSubmit={(instructions) => void submitForm('request-changes', { action: 'request-changes', instructions })} /> : null}
      {form === 'clarify' ? <ClarifyForm questions={questions} busy={busy !== null} onCancel={() => setForm(null)} onSubmit={(answer) => void submitForm('clarify', { action: 'clarify', answer })} /> : null}
      {form === 'resume' ? <ResumeForm busy={busy !== null} onCancel={() => setForm(null)} onSubmit={(budgetUsd) => void submitForm('resume', budgetUsd === null ? { action: 'resume' } : { action: 'resume', budgetUsd })} /> : null}
      {question ? <ConfirmDialog question={question.confirmation} onAnswer={question.answer} /> : null}
    </div>
  );
}

function ChangesForm({ busy, onSubmit, onCancel }: { readonly busy: boolean; readonly onSubmit: (instructions: string) => void; readonly onCancel: () => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="action-form"
      data-testid="form-request-changes"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(text.trim());
      }}
    >
      <label class="field">
        <span>What should change? <em class="muted">optional — goes to the task's ## Notes, and the worker starts again</em></span>
        <textarea rows={4} value={text} data-testid="changes-text" autoFocus onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      </label>
      <div class="form-buttons">
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="btn primary" data-testid="changes-submit" disabled={busy}>
          Request changes
        </button>
      </div>
    </form>
  );
}

/** The answer to the task's `## Questions` (a pipeline task awaiting clarification is classified again). */
export function ClarifyForm({ questions, busy, onSubmit, onCancel }: { readonly questions: string | null; readonly busy: boolean; readonly onSubmit: (answer: string) => void; readonly onCancel?: () => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="action-form"
      data-testid="form-clarify"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) onSubmit(text.trim());
      }}
    >
      {questions ? (
        <div class="questions">
          <h3>Questions</h3>
          <MarkdownView source={questions} testId="questions" />
        </div>
      ) : null}
      <label class="field">
        <span>Your answer</span>
        <textarea rows={4} value={text} data-testid="clarify-answer" onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      </label>
      <div class="form-buttons">
        {onCancel ? (
          <button type="button" class="btn" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" class="btn primary" data-testid="clarify-submit" disabled={busy || !text.trim()}>
          Send answer
        </button>
      </div>
    </form>
  );
}

function ResumeForm({ busy, onSubmit, onCancel }: { readonly busy: boolean; readonly onSubmit: (budgetUsd: number | null) => void; readonly onCancel: () => void }) {
  const [budget, setBudget] = useState('');
  const value = budget.trim() === '' ? null : Number(budget);
  const invalid = value !== null && (!Number.isFinite(value) || value <= 0);
  return (
    <form
      class="action-form"
      data-testid="form-resume"
      onSubmit={(e) => {
        e.preventDefault();
        if (!invalid) onSubmit(value);
      }}
    >
      <label class="field field-inline">
        <span>Budget (USD) <em class="muted">optional — a new spending limit for the pipeline</em></span>
        <input type="number" min="0" step="0.5" inputMode="decimal" value={budget} placeholder="e.g. 5" data-testid="resume-budget" onInput={(e) => setBudget((e.target as HTMLInputElement).value)} />
      </label>
      <div class="form-buttons">
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="btn primary" data-testid="resume-submit" disabled={busy || invalid}>
          Resume
        </button>
      </div>
    </form>
  );
}
