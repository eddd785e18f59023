import { useEffect, useState } from 'preact/hooks';
import type { BoardSnapshot } from '../../../src/protocol';

/** The board stream's state: live once the server answered, reconnecting after it dropped. */
export type Connection = 'connecting' | 'live' | 'reconnecting';

/** How long to wait before opening a stream the browser gave up on (a 401, a server restart). */
const RETRY_MS = 3000;

/**
 * The one owner of the board: the server pushes the whole board on the `board` event of
 * `/api/events` each time it changes. EventSource reconnects by itself after a dropped stream;
 * when it gives up (its readyState closed), a new one is opened after a pause.
 */
export function useBoard(): { readonly board: BoardSnapshot | null; readonly connection: Connection } {
  const [board, setBoard] = useState<BoardSnapshot | null>(null);
  const [connection, setConnection] = useState<Connection>('connecting');
  useEffect(() => {
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const open = () => {
      source = new EventSource('/api/events');
      source.addEventListener('open', () => setConnection('live'));
      source.addEventListener('board', (event) => {
        try {
          setBoard(JSON.parse((event as MessageEvent<string>).data) as BoardSnapshot);
          setConnection('live');
        } catch {
          // A torn message: the next one carries the whole board again.
        }
      });
      source.addEventListener('error', () => {
        setConnection('reconnecting');
        if (source?.readyState === EventSource.CLOSED && !stopped) {
          source.close();
          retry = setTimeout(open, RETRY_MS);
        }
      });
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, []);
  return { board, connection };
}
