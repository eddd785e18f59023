import type { AgentRole, DiffStat, HistoryEvent } from '@orange/core';
import { Box, Text } from 'ink';
import { shown, shownPaneLine, wrapped } from '../shown-text.js';
import type { TaskRow } from '../task-row.js';

export interface DetailPaneProps {
  readonly row: TaskRow | undefined;
  readonly role: AgentRole;
  /** The agent window's last capture (null: no window). */
  readonly preview: string | null;
  /** TASK.md's `## Questions` while the task waits for a person's answer (null: none, or it waits for nothing). */
  readonly questions?: string | null;
  readonly history: readonly HistoryEvent[];
  readonly diff: DiffStat | null;
  readonly height: number;
  readonly width: number;
  readonly colour: boolean;
}

const SIDE_W = 42;

/**
 * The selected task: on the left the live preview of its agent's window (worker or reviewer), on
 * the right the diff stat against the default branch and the history timeline from the ledger.
 * A task waiting for a person's answer shows its `## Questions` on the left: above the preview of
 * the agent that asked and waits (at most half the pane), or in its place where none runs.
 */
export function DetailPane({ row, role, preview, questions = null, history, diff, height, width, colour }: DetailPaneProps) {
  if (!row || height <= 0) return null;
  const side = Math.min(SIDE_W, Math.floor(width / 2));
  const previewWidth = Math.max(10, width - side - 1);
  const body = height - 1;
  const asked = questions === null ? [] : questionLines(questions, previewWidth, preview === null ? body : Math.max(2, Math.ceil(body / 2)));
  const lines = preview === null ? [] : trimBlank(preview.split('\n')).slice(-Math.max(1, body - asked.length));
  const diffLines = diff
    ? [`${diff.ahead} ahead · +${diff.added} -${diff.removed} · ${diff.files.length} file${diff.files.length === 1 ? '' : 's'}`, ...diff.files.map((f) => `${f.path} +${f.added} -${f.removed}`)]
    : [row.meta.workspace ? 'diff: …' : 'no worktree'];
  const diffShown = diffLines.slice(0, Math.max(1, Math.floor(body / 3)));
  const timeline = history
    .filter((e) => e.type !== 'task.created' || history.length < body)
    .map(historyText)
    .slice(-(body - diffShown.length - 1));
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`[${role}] ${shown(row.meta.id)} · ${shown(row.meta.summary || row.meta.branch, Math.max(1, width - 40))}`}
      </Text>
      <Box flexDirection="row">
        <Box flexDirection="column" width={previewWidth} overflow="hidden">
          {asked.map((line, i) => (
            <Text key={`q${i}`} wrap="truncate" bold={i === 0} color={colour && i === 0 ? 'yellow' : undefined}>
              {line || ' '}
            </Text>
          ))}
          {preview !== null
            ? lines.map((line, i) => (
                <Text key={i} wrap="truncate">
                  {shownPaneLine(line, colour) || ' '}
                </Text>
              ))
            : asked.length === 0 && <Text dimColor>{row.alive.includes(role) ? '…' : `no ${role} window`}</Text>}
        </Box>
        <Box flexDirection="column" width={side} marginLeft={1}>
          {diffShown.map((line, i) => (
            <Text key={`d${i}`} wrap="truncate" color={colour && i === 0 ? 'cyan' : undefined}>
              {shown(line, side)}
            </Text>
          ))}
          <Text dimColor>history</Text>
          {timeline.map((line, i) => (
            <Text key={`h${i}`} wrap="truncate">
              {shown(line, side)}
            </Text>
          ))}
        </Box>
      </Box>
    </Box>
  );
}

/**
 * One ledger event: a status change as `14:02 working → agent-review (request)`; anything else
 * as its type and what it says — a failed hook with its action and error (`14:03 hook.failed
 * spawn_agent: …`), never as a transition (its from/to are the move it failed in).
 */
export function historyText(event: HistoryEvent): string {
  const time = typeof event.timestamp === 'string' ? event.timestamp.slice(11, 16) : '';
  const facts = event as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const because = [facts.cause, facts.reason].map(text).filter(Boolean).join(': ');
  if (event.type === 'status.changed' && text(facts.from) && text(facts.to)) return `${time} ${String(facts.from)} → ${String(facts.to)}${because ? ` (${because})` : ''}`;
  if (event.type === 'hook.failed') return `${time} hook.failed ${text(facts.hook) ?? '?'}${text(facts.error) ? `: ${String(facts.error)}` : ''}`;
  return `${time} ${event.type}${because ? ` (${because})` : ''}`;
}

/**
 * The `## Questions` text as at most `room` lines of `width` columns: a heading, then the text
 * sanitised and wrapped at spaces — its end when it does not fit (a pipeline task's latest round
 * of questions is the last), the heading then saying how much is above (`v` shows all of TASK.md).
 */
export function questionLines(text: string, width: number, room: number): string[] {
  if (room <= 0) return [];
  const lines = text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .flatMap((line) => wrapped(shown(line.replace(/\t/g, '  ')), width));
  const fits = room - 1;
  if (lines.length <= fits) return ['## Questions', ...lines];
  return [`## Questions (${lines.length - fits} more lines above: v)`, ...(fits > 0 ? lines.slice(-fits) : [])];
}

function trimBlank(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && (lines[end - 1] ?? '').replace(/\u001b\[[0-9;:]*m/g, '').trim() === '') end--;
  return lines.slice(0, end);
}
