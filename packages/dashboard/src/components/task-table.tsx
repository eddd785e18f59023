import { Box, Text } from 'ink';
import { relativeTime } from '@orange/core';
import { displayWidth, padded, shown } from '../shown-text.js';
import { statusColour } from '../status-colour.js';
import { livenessIcon, workspaceNumber, type TaskRow } from '../task-row.js';

export interface TaskTableProps {
  /** The rows on screen (the table is virtualised: only these are rendered). */
  readonly rows: readonly TaskRow[];
  readonly selectedId: string | null;
  readonly width: number;
  readonly now: number;
  readonly colour: boolean;
  /** Show PROJECT/branch instead of branch (the `--all` scope). */
  readonly showProject: boolean;
  readonly layout: TableLayout;
}

const STATUS_W = 15;
const PR_W = 12;
const AHEAD_W = 6;
const CHANGES_W = 11;
const ACTIVITY_W = 9;
const LEAD_W = 5; // icon, space, worktree number, space

/** How wide the TASK and SUMMARY columns are (0: no SUMMARY column; the summary goes under the selected row). */
export interface TableLayout {
  readonly taskW: number;
  readonly summaryW: number;
}

/** Below this the SUMMARY column is not worth its place. */
const SUMMARY_MIN_W = 30;

/** The name a row shows in the TASK column. */
function taskName(row: TaskRow, showProject: boolean): string {
  return showProject ? `${row.meta.project}/${row.meta.branch}` : row.meta.branch;
}

/**
 * The columns for `width`: TASK as wide as the longest name shown (and at least the heading),
 * SUMMARY with what is left when that is enough to read one; on a narrow screen TASK takes all
 * that is left and the selected row shows its summary under it.
 */
export function tableLayout(width: number, rows: readonly TaskRow[], showProject: boolean): TableLayout {
  const left = Math.max(10, width - LEAD_W - STATUS_W - PR_W - AHEAD_W - CHANGES_W - ACTIVITY_W - 1);
  const longest = rows.reduce((max, row) => Math.max(max, displayWidth(shown(taskName(row, showProject)))), 'TASK'.length);
  const taskW = Math.min(left, longest + 2);
  const summaryW = left - taskW;
  return summaryW >= SUMMARY_MIN_W ? { taskW, summaryW } : { taskW: left, summaryW: 0 };
}

/** The column headings. */
export function TableHeader({ width, layout }: { readonly width: number; readonly layout: TableLayout }) {
  const summary = layout.summaryW > 0 ? 'SUMMARY'.padEnd(layout.summaryW) : '';
  const line = `${' '.repeat(LEAD_W)}${'TASK'.padEnd(layout.taskW)}${summary}${'STATUS'.padEnd(STATUS_W)}${'PR'.padEnd(PR_W)}${'AHEAD'.padEnd(AHEAD_W)}${'CHANGES'.padEnd(CHANGES_W)}ACTIVITY`;
  return <Text bold>{line.slice(0, width)}</Text>;
}

/** The task rows, the selected one highlighted (with its summary under it when there is no SUMMARY column). */
export function TaskTable({ rows, selectedId, width, now, colour, showProject, layout }: TaskTableProps) {
  const { taskW, summaryW } = layout;
  return (
    <Box flexDirection="column">
      {rows.map((row) => {
        const selected = row.meta.id === selectedId;
        const number = workspaceNumber(row.meta.workspace);
        // Padded by display width: a branch in CJK or with an emoji keeps the columns after it aligned.
        const name = padded(shown(taskName(row, showProject), taskW - 1), taskW);
        const status = padded(shown(`${row.meta.status}${row.meta.attention ? ' !' : ''}${row.tampered.length ? ' ⚠' : ''}`, STATUS_W - 1), STATUS_W);
        const iconColour = colour ? (row.liveness === 'alive' ? 'green' : row.liveness === 'dead' ? 'red' : row.liveness === 'starting' ? 'yellow' : 'gray') : undefined;
        return (
          <Box key={row.meta.id} flexDirection="column">
            <Text inverse={selected} wrap="truncate">
              <Text color={iconColour}>{livenessIcon(row.liveness)}</Text>
              {` ${(number === null ? '' : String(number)).padStart(2)} `}
              {name}
              {summaryW > 0 ? padded(shown(row.meta.summary, summaryW - 1), summaryW) : ''}
              <Text color={statusColour(row.meta.status, colour)}>{status}</Text>
              {padded(prCell(row), PR_W)}
              {(row.diff && row.diff.ahead > 0 ? String(row.diff.ahead) : '').padEnd(AHEAD_W)}
              {(row.diff && (row.diff.added || row.diff.removed) ? `+${row.diff.added} -${row.diff.removed}` : '').padEnd(CHANGES_W)}
              {relativeTime(row.meta.updated_at, now)}
            </Text>
            {selected && row.meta.summary && summaryW === 0 ? (
              <Text dimColor wrap="truncate">
                {`${' '.repeat(LEAD_W)}${shown(row.meta.summary, Math.max(1, width - LEAD_W))}`}
              </Text>
            ) : null}
          </Box>
        );
      })}
    </Box>
  );
}

/** `#12 open ✓`, `#9 merged`, `#12` before the state is known, empty without a PR. */
function prCell(row: TaskRow): string {
  if (!row.pr) return '';
  const number = row.pr.number === null ? 'PR' : `#${row.pr.number}`;
  const checks = row.pr.checks ? ` ${row.pr.checks}` : '';
  return shown(row.pr.state ? `${number} ${row.pr.state}${checks}` : number, PR_W - 1);
}
