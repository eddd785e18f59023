import type { AgentRole, Orange, TerminalStream } from '@orange/core';
import type { WebSocket } from 'ws';
import type { TerminalClientMessage, TerminalServerMessage } from './protocol.js';

const TERMINAL_PATH = /^\/api\/terminal\/([^/]+)\/([0-9A-Za-z]{21})\/(worker|reviewer)$/;
/** A page that reads slower than the agent writes is cut off past this much unsent output. */
const BACKLOG_LIMIT = 8 * 1024 * 1024;
/** The most a page may type in one message. */
const INPUT_LIMIT = 64 * 1024;

/** The task and role a terminal socket's path names, or null when it names none. */
export function terminalTarget(path: string): { project: string; id: string; role: AgentRole } | null {
  const match = TERMINAL_PATH.exec(path);
  if (!match) return null;
  try {
    return { project: decodeURIComponent(match[1]!), id: match[2]!, role: match[3] as AgentRole };
  } catch {
    return null;
  }
}

/**
 * One page's view of one agent's terminal: the runtime's live stream (`Runtime.terminal`) over a
 * WebSocket. The page only watches until it asks to type (`{type:'type', on:true}`); keys and
 * resizes before that are dropped, so a stray key on an open page never reaches an agent.
 */
export async function serveTerminal(orange: Orange, socket: WebSocket, target: { project: string; id: string; role: AgentRole }): Promise<void> {
  const send = (message: TerminalServerMessage) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  const finish = (reason: string) => {
    send({ type: 'closed', reason });
    socket.close(1000);
  };
  let stream: TerminalStream | null = null;
  let ended = false;
  let typing = false;
  socket.on('close', () => {
    ended = true;
    void stream?.close();
  });
  socket.on('message', (raw, binary) => {
    if (binary || !stream) return;
    const message = parseClientMessage(raw.toString());
    if (!message) return;
    if (message.type === 'type') {
      typing = message.on;
      send({ type: 'mode', typing });
    } else if (message.type === 'input' && typing) {
      void stream.input(message.data).catch((error: unknown) => orange.log.warn('web terminal input failed', { task: target.id, error: String(error) }));
    } else if (message.type === 'resize' && typing) {
      void stream.resize({ cols: message.cols, rows: message.rows }).catch((error: unknown) => orange.log.warn('web terminal resize failed', { task: target.id, error: String(error) }));
    }
  });
  let meta;
  try {
    meta = (await orange.store.read(target.project, target.id)).meta;
  } catch (error) {
    return finish(error instanceof Error ? error.message.split('\n')[0]! : String(error));
  }
  const runtime = orange.maybeSlot('runtime');
  if (!runtime?.terminal) return finish(`the ${runtime?.name ?? 'configured'} runtime shows no live terminal`);
  try {
    stream = await runtime.terminal(meta, target.role, {
      screen: (data, size) => send({ type: 'screen', cols: size.cols, rows: size.rows, data }),
      output: (data) => {
        if (socket.readyState !== socket.OPEN) return;
        if (socket.bufferedAmount > BACKLOG_LIMIT) return finish('this page fell too far behind the agent; reconnect');
        socket.send(data, { binary: true });
      },
      closed: (reason) => finish(reason),
    });
  } catch (error) {
    return finish(`could not follow the ${target.role}: ${error instanceof Error ? error.message.split('\n')[0]! : String(error)}`);
  }
  if (!stream) return finish(`task ${target.id} has no ${target.role} window now`);
  // The page went away while the stream was being opened.
  if (ended) await stream.close();
  else send({ type: 'mode', typing });
}

function parseClientMessage(text: string): TerminalClientMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const message = value as Record<string, unknown>;
  if (message.type === 'type' && typeof message.on === 'boolean') return { type: 'type', on: message.on };
  if (message.type === 'input' && typeof message.data === 'string' && message.data.length <= INPUT_LIMIT) return { type: 'input', data: message.data };
  if (message.type === 'resize' && isCells(message.cols) && isCells(message.rows)) return { type: 'resize', cols: message.cols, rows: message.rows };
  return null;
}

function isCells(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 1000;
}
