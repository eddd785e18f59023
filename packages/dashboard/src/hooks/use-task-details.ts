import type { AgentRole, HistoryEvent } from '@orange/core';
import { useEffect, useState } from 'react';
import type { DashboardActions } from '../task-actions.js';
import type { TaskRow } from '../task-row.js';

/** The selected agent's window, captured about once a second while its task is selected. */
export function usePreview(actions: DashboardActions, row: TaskRow | undefined, role: AgentRole, intervalMs = 1000): string | null {
  const [preview, setPreview] = useState<string | null>(null);
  const meta = row?.meta;
  const live = row ? row.alive.includes(role) : false;
  useEffect(() => {
    setPreview(null);
    if (!meta || !live) return;
    let stopped = false;
    const capture = async () => {
      const text = await actions.capture(meta, role).catch(() => null);
      if (!stopped) setPreview(text);
    };
    void capture();
    const timer = setInterval(() => void capture(), intervalMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
    // The task's id, not its fields: a status change must not restart the capture loop.
  }, [actions, meta?.id, meta?.review_round, role, live, intervalMs]);
  return preview;
}

/** The selected task's ledger, read again whenever its files change (`revision`). */
export function useHistory(actions: DashboardActions, row: TaskRow | undefined, revision: number): HistoryEvent[] {
  const [history, setHistory] = useState<HistoryEvent[]>([]);
  const project = row?.meta.project;
  const id = row?.meta.id;
  useEffect(() => {
    if (!project || !id) {
      setHistory([]);
      return;
    }
    let stopped = false;
    void actions
      .history({ project, id })
      .then((events) => !stopped && setHistory(events))
      .catch(() => !stopped && setHistory([]));
    return () => {
      stopped = true;
    };
  }, [actions, project, id, revision]);
  return history;
}
