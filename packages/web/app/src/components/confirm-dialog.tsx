import { useEffect, useRef } from 'preact/hooks';
import { blockText, inlineText } from '../shown-text';

/** A question to confirm before an action (force-merge, cancel, delete). */
export interface Confirmation {
  readonly title: string;
  readonly text: string;
  readonly ok: string;
  readonly danger: boolean;
}

/** The confirmation dialog: Enter or OK confirms, Esc or Cancel does not. */
export function ConfirmDialog({ question, onAnswer }: { readonly question: Confirmation; readonly onAnswer: (yes: boolean) => void }) {
  const okButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    okButton.current?.focus();
    const key = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onAnswer(false);
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [onAnswer]);
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onAnswer(false)}>
      <div class="dialog" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" data-testid="confirm">
        <h2 id="confirm-title">{inlineText(question.title)}</h2>
        <p class="dialog-text" data-testid="confirm-text">
          {blockText(question.text)}
        </p>
        <div class="dialog-buttons">
          <button type="button" class="btn" data-testid="confirm-cancel" onClick={() => onAnswer(false)}>
            Cancel
          </button>
          <button type="button" ref={okButton} class={`btn ${question.danger ? 'danger' : 'primary'}`} data-testid="confirm-ok" onClick={() => onAnswer(true)}>
            {question.ok}
          </button>
        </div>
      </div>
    </div>
  );
}
