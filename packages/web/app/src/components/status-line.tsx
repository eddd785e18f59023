import { inlineText, safeHref } from '../shown-text';

/** What the last action said: its sentence, a refusal's `code: message`, or that it runs. */
export interface StatusMessage {
  readonly kind: 'ok' | 'error' | 'busy';
  readonly text: string;
  /** A URL the action gave (a pull request's), shown as a link. */
  readonly url?: string;
}

/** The status line at the bottom of the page. */
export function StatusLine({ message, onDismiss }: { readonly message: StatusMessage | null; readonly onDismiss: () => void }) {
  if (!message) return null;
  const href = message.url ? safeHref(message.url) : null;
  return (
    <div class={`status-line status-line-${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'} data-testid="message" data-kind={message.kind}>
      {/* The icon and the close mark are drawn by CSS: the element's text is the message alone. */}
      <span class="status-line-icon" aria-hidden="true" />
      <span class="status-line-text">
        {inlineText(message.text)}
        {href ? (
          <>
            {' '}
            <a href={href} target="_blank" rel="noopener noreferrer" data-testid="message-link">
              {inlineText(href)}
            </a>
          </>
        ) : message.url ? (
          ` ${inlineText(message.url)}`
        ) : null}
      </span>
      <button type="button" class="status-line-close" aria-label="dismiss" data-testid="message-dismiss" onClick={onDismiss} />
    </div>
  );
}
