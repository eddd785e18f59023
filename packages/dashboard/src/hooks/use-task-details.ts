import type { AgentRole, HistoryEvent } from '@orange/core';
import { useEffect, useState } from 'react';
import { awaitsAnswer, questionsIn } from '../clarification.js';
import type { DashboardActions } from '../task-actions.js';
import type { TaskRow } from '../task-row.js';

/** The selected agent's window, captured about once a second while its task is selected. */
export function usePreview(actions: DashboardActions, row: TaskRow | undefined, role: AgentRole, intervalMs = 1000): string | null {
  // Kept with the window it was captured from: another agent's screen is never shown for this one.
  const [preview, setPreview] = useState<{ key: string; text: string | null } | null>(null);
  const meta = row?.meta;
  const live = row ? row.alive.includes(role) : false;
  const key = meta ? `${meta.id}:${role}:${meta.review_round}` : '';
  useEffect(() => {
    if (!meta || !live) return;
    let stopped = false;
    const capture = async () => {
      const text = await actions.capture(meta, role).catch(() => null);
      if (!stopped) setPreview({ key, text });
    };
    void capture();
    const timer = setInterval(() => void capture(), intervalMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
    // The window, not the task's fields: a status change must not restart the capture loop.
  }, [actions, key, live, intervalMs]);
  return live && preview?.key === key ? preview.text : null;
}

/** The selected task's ledger, read again whenever its files change (`revision`); empty until read. */
export function useHistory(actions: DashboardActions, row: TaskRow | undefined, revision: number): HistoryEvent[] {
  // Kept with the id it was read for: another task's ledger is never shown while this one's is read.
  const [history, setHistory] = useState<{ id: string; events: HistoryEvent[] } | null>(null);
  const project = row?.meta.project;
  const id = row?.meta.id;
  useEffect(() => {
    if (!project || !id) return;
    let stopped = false;
    void actions
      .history({ project, id })
      .then((events) => !stopped && setHistory({ id, events }))
      .catch(() => !stopped && setHistory({ id, events: [] }));
    return () => {
      stopped = true;
    };
  }, [actions, project, id, revision]);
  return history && history.id === id ? history.events : [];
}

/**
 * The selected task's `## Questions` while it waits for a person's answer (`awaitsAnswer`), read
 * from its TASK.md again whenever its files change (`revision`); null otherwise, or until read.
 */
export function useQuestions(actions: DashboardActions, row: TaskRow | undefined, revision: number): string | null {
  // Kept with the id it was read for: another task's questions are never shown for this one.
  const [questions, setQuestions] = useState<{ id: string; text: string | null } | null>(null);
  const project = row?.meta.project;
  const id = row?.meta.id;
  const asking = row ? awaitsAnswer(row) : false;
  useEffect(() => {
    if (!project || !id || !asking) return;
    let stopped = false;
    void actions
      .taskFile({ project, id })
      .then((body) => !stopped && setQuestions({ id, text: questionsIn(body) }))
      .catch(() => !stopped && setQuestions({ id, text: null }));
    return () => {
      stopped = true;
    };
  }, [actions, project, id, asking, revision]);
  return asking && questions && questions.id === id ? questions.text : null;
}
