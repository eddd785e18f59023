import { Text } from 'ink';
import { displayWidth, shown } from '../shown-text.js';
import type { RowFilter } from '../task-row.js';

export interface HeaderProps {
  /** The scope: a project's name, or "all projects". */
  readonly scope: string;
  readonly filter: RowFilter;
  readonly search: string;
  readonly agents: number;
  readonly needsYou: number;
  /** Who runs the monitor's poll, for the right side. */
  readonly monitor: string;
  readonly width: number;
  readonly colour: boolean;
}

/** Columns the left side keeps however long the right side is (`Orange · ` and a bit of the scope). */
const LEFT_MIN = 20;

/**
 * `Orange · app · showing active` on the left (the scope, then the filter: never read as a project name); agents running, tasks waiting for a human, the monitor on
 * the right. Both are cut to fit `width` display columns together (the right first keeps what it
 * can, leaving the left at least LEFT_MIN), so a long monitor label never wraps the header.
 */
export function Header({ scope, filter, search, agents, needsYou, monitor, width, colour }: HeaderProps) {
  const right = shown(`${agents} agent${agents === 1 ? '' : 's'} · ${needsYou} need${needsYou === 1 ? 's' : ''} you · ${monitor}`, Math.max(1, width - LEFT_MIN - 1));
  const left = shown(`Orange · ${scope} · showing ${filter}${search ? ` /${search}` : ''}`, Math.max(1, width - displayWidth(right) - 1));
  const gap = Math.max(1, width - displayWidth(left) - displayWidth(right));
  return (
    <Text wrap="truncate">
      <Text bold color={colour ? '#ff8c00' : undefined}>
        {left}
      </Text>
      {' '.repeat(gap)}
      {right}
    </Text>
  );
}
