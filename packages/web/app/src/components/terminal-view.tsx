import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Role, TerminalClientMessage, TerminalServerMessage } from '../../../src/protocol';
import { fittedFontSize, isTerminalReport, proposedSize } from '../terminal-fit';
import { inlineText, safeHref } from '../shown-text';

const FONT_FAMILY = 'ui-monospace, "SFMono-Regular", "JetBrains Mono", "Cascadia Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';
/** The font size the page asks the agent's window to fit while a person types. */
const TYPING_FONT = 14;
/** The pause after the last window resize before the agent's window is resized with it. */
const RESIZE_DEBOUNCE_MS = 250;
/** Padding inside the frame around the terminal (styles.css `.term-frame`). */
const FRAME_PADDING = 10;
/** The page's top bar and the terminal's own toolbar, above the terminal when it is scrolled into view. */
const BARS_HEIGHT = 56 + 44;

type Phase = 'connecting' | 'open' | 'closed';

/**
 * An agent's terminal, live (xterm.js on `/api/terminal/:project/:id/:role`). Read-only until
 * the person presses Type: only then are keys sent. The terminal is drawn at the agent window's
 * size, its font scaled so that every column fits the page's width; while typing, the agent's
 * window is resized to what the page fits at a normal font size.
 */
export function TerminalView({ project, id, role }: { readonly project: string; readonly id: string; readonly role: Role }) {
  const pane = useRef<HTMLElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const terminal = useRef<Terminal | null>(null);
  const socket = useRef<WebSocket | null>(null);
  const typingNow = useRef(false);
  const [phase, setPhase] = useState<Phase>('connecting');
  const [closed, setClosed] = useState<string | null>(null);
  const [typing, setTyping] = useState(false);
  const [size, setSize] = useState<{ cols: number; rows: number } | null>(null);
  const [attempt, setAttempt] = useState(0);

  const send = (message: TerminalClientMessage) => {
    const ws = socket.current;
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  };

  /** The font size at which the terminal's columns fill the frame's width. */
  const fit = () => {
    const term = terminal.current;
    const box = frame.current;
    if (!term || !box || box.clientWidth === 0) return;
    const font = fittedFontSize(box.clientWidth - 2 * FRAME_PADDING, term.cols, charRatio());
    if (term.options.fontSize !== font) term.options.fontSize = font;
  };

  /** While typing: the agent's window resized to what the frame fits at a normal font size. */
  const sendSize = () => {
    const box = frame.current;
    if (!box || !typingNow.current) return;
    // The height of the window less the bars above the terminal: the person scrolls the terminal
    // into view to type, and a window the height of what is left below the task's header would be tiny.
    const height = Math.max(160, window.innerHeight - BARS_HEIGHT - 2 * FRAME_PADDING);
    const proposed = proposedSize(box.clientWidth - 2 * FRAME_PADDING, height, TYPING_FONT, charRatio());
    send({ type: 'resize', cols: proposed.cols, rows: proposed.rows });
  };

  // The terminal itself: made once, kept across reconnects.
  useEffect(() => {
    if (!host.current) return;
    const term = new Terminal({
      fontFamily: FONT_FAMILY,
      fontSize: 13,
      scrollback: 2000,
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'outline',
      allowProposedApi: false,
      theme: { background: '#0b0d11', foreground: '#d7dae0', cursor: '#ff8a1f', cursorAccent: '#0b0d11', selectionBackground: '#ff8a1f55' },
      // A link written by an agent (OSC 8) opens only when it is http(s), without a referrer.
      linkHandler: {
        activate: (_event, uri) => {
          const href = safeHref(uri);
          if (href) window.open(href, '_blank', 'noopener,noreferrer');
        },
      },
    });
    term.open(host.current);
    terminal.current = term;
    const forward = (data: string) => {
      // The page's xterm answers terminal queries in the output (device attributes, cursor
      // position): tmux already answered them; typed into the agent they would be garbage.
      if (typingNow.current && !isTerminalReport(data)) send({ type: 'input', data });
    };
    const onData = term.onData(forward);
    const onBinary = term.onBinary(forward);
    return () => {
      onData.dispose();
      onBinary.dispose();
      term.dispose();
      terminal.current = null;
    };
  }, []);

  // The connection: again on Reconnect.
  useEffect(() => {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/api/terminal/${encodeURIComponent(project)}/${encodeURIComponent(id)}/${role}`);
    ws.binaryType = 'arraybuffer';
    socket.current = ws;
    let toldClosed = false;
    setPhase('connecting');
    setClosed(null);
    ws.addEventListener('open', () => setPhase('open'));
    ws.addEventListener('message', (event: MessageEvent<string | ArrayBuffer>) => {
      const term = terminal.current;
      if (!term) return;
      if (typeof event.data !== 'string') {
        term.write(new Uint8Array(event.data));
        return;
      }
      let message: TerminalServerMessage;
      try {
        message = JSON.parse(event.data) as TerminalServerMessage;
      } catch {
        return;
      }
      if (message.type === 'screen') {
        const cols = cells(message.cols, 80);
        const rows = cells(message.rows, 24);
        term.reset();
        term.resize(cols, rows);
        term.write(message.data);
        setSize({ cols, rows });
        fit();
      } else if (message.type === 'mode') {
        setTypingState(message.typing);
      } else if (message.type === 'closed') {
        toldClosed = true;
        setClosed(message.reason);
      }
    });
    ws.addEventListener('close', (event) => {
      setPhase('closed');
      setTypingState(false);
      if (!toldClosed) setClosed(event.reason || `connection lost${event.code && event.code !== 1000 && event.code !== 1005 ? ` (${event.code})` : ''}`);
    });
    return () => {
      socket.current = null;
      ws.close();
    };
  }, [project, id, role, attempt]);

  // The font follows the frame's width (the window resized, the tab shown); while typing, the
  // agent's window follows too, once the resizing stops.
  useEffect(() => {
    const box = frame.current;
    if (!box) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const observer = new ResizeObserver(() => fit());
    observer.observe(box);
    const resized = () => {
      clearTimeout(timer);
      timer = setTimeout(sendSize, RESIZE_DEBOUNCE_MS);
    };
    window.addEventListener('resize', resized);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', resized);
      clearTimeout(timer);
    };
  }, []);

  const setTypingState = (on: boolean) => {
    typingNow.current = on;
    setTyping(on);
    const term = terminal.current;
    if (!term) return;
    term.options.disableStdin = !on;
    if (on) term.focus();
    else term.blur();
  };

  const toggleTyping = () => {
    const on = !typingNow.current;
    send({ type: 'type', on });
    setTypingState(on);
    if (on) {
      // The agent's window is made the height of the page's window: show all of it.
      pane.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
      sendSize();
    }
  };

  const live = phase === 'open' && closed === null;
  return (
    <section ref={pane} class={`terminal-view${typing ? ' is-typing' : ''}`}>
      <div class="term-toolbar">
        <span class={`term-state term-state-${closed !== null ? 'closed' : phase}`} data-testid={`terminal-state-${role}`}>
          <span class="connection-dot" aria-hidden="true" />
          {closed !== null ? `closed: ${inlineText(closed)}` : phase === 'open' ? 'live' : 'connecting…'}
        </span>
        {size ? (
          <span class="muted term-size" title="the agent window's size">
            {size.cols}×{size.rows}
          </span>
        ) : null}
        <span class="spacer" />
        {typing ? <span class="typing-hint">keys go to the agent</span> : null}
        {closed !== null ? (
          <button type="button" class="btn small" data-testid={`reconnect-${role}`} onClick={() => setAttempt((n) => n + 1)}>
            Reconnect
          </button>
        ) : null}
        <button type="button" class={`btn small${typing ? ' typing-on' : ''}`} aria-pressed={typing} data-testid={`type-${role}`} disabled={!live} onClick={toggleTyping}>
          {typing ? '■ Stop typing' : '⌨ Type'}
        </button>
      </div>
      <div ref={frame} class="term-frame" data-testid={`terminal-${role}`} data-state={closed !== null ? 'closed' : phase} data-typing={typing ? 'true' : 'false'}>
        <div ref={host} class="term-host" />
        {closed !== null ? (
          <div class="term-closed" data-testid={`terminal-closed-${role}`}>
            <p>closed: {inlineText(closed)}</p>
            <button type="button" class="btn" onClick={() => setAttempt((n) => n + 1)}>
              Reconnect
            </button>
          </div>
        ) : null}
      </div>
    </section>
  );
}

/** A cell count from the server, as xterm takes it. */
function cells(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(1000, Math.max(1, Math.floor(value))) : fallback;
}

let ratio: number | null = null;

/** A monospace cell's width per pixel of font size, measured once. */
function charRatio(): number {
  if (ratio !== null) return ratio;
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return 0.6;
  context.font = `100px ${FONT_FAMILY}`;
  const width = context.measureText('W'.repeat(20)).width / 20 / 100;
  ratio = width > 0.3 && width < 1 ? width : 0.6;
  return ratio;
}

