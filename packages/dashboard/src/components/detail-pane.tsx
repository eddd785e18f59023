import type { AgentRole, DiffStat, HistoryEvent } from '@orange/core';
import { Box, Text } from 'ink';
import { shown, shownPaneLine } from '../shown-text.js';
import type { TaskRow } from '../task-row.js';

export interface DetailPaneProps {
  readonly row: TaskRow | undefined;
  readonly role: AgentRole;
  /** The agent window's last capture (null: no window). */
  readonly preview: string | null;
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
 */
export function DetailPane({ row, role, preview, history, diff, height, width, colour }: DetailPaneProps) {
  if (!row || height <= 0) return null;
  const side = Math.min(SIDE_W, Math.floor(width / 2));
  const previewWidth = Math.max(10, width - side - 1);
  const body = height - 1;
  const lines = preview === null ? [] : trimBlank(preview.split('\n')).slice(-body);
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
          {preview === null ? (
            <Text dimColor>{row.alive.includes(role) ? '…' : `no ${role} window`}</Text>
          ) : (
            lines.map((line, i) => (
              <Text key={i} wrap="truncate">
                {shownPaneLine(line, colour) || ' '}
              </Text>
            ))
          )}
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

function trimBlank(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && (lines[end - 1] ?? '').replace(/\u001b\[[0-9;:]*m/g, '').trim() === '') end--;
  return lines.slice(0, end);
}
