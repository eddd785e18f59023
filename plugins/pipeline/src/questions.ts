import { inertHeadings } from '@orange/core';

/** At most this many questions per classification, each at most QUESTION_CHARS: they go into TASK.md and a notification. */
const MAX_QUESTIONS = 5;
const QUESTION_CHARS = 300;

/**
 * The questions a classifier's result carries (`questions`: a list, or lines of text), each made
 * one inert line: no numbering of its own, no markdown heading, trimmed and capped. Pure.
 */
export function questionsFrom(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split('\n') : [];
  return items
    .filter((item): item is string => typeof item === 'string')
    .map((item) => oneLine(item).replace(/^(\d+[.)]|[-*•])\s+/, ''))
    .filter((item) => item !== '')
    .slice(0, MAX_QUESTIONS)
    .map((item) => (item.length > QUESTION_CHARS ? `${item.slice(0, QUESTION_CHARS - 1)}…` : item));
}

/**
 * `## Questions` with one more round asked: `Asked (round N):` and the numbered questions — or,
 * when the classifier asked none, what it was unsure of — after the rounds and answers before. Pure.
 */
export function withQuestionsAsked(section: string | undefined, questions: readonly string[], unsure: string): string {
  const previous = (section ?? '').trimEnd();
  const round = (previous.match(/^Asked \(round \d+\):/gm)?.length ?? 0) + 1;
  const asked = questions.length > 0 ? questions.map((q, i) => `${i + 1}. ${q}`).join('\n') : `1. ${unsure}`;
  return `${previous ? `${previous}\n\n` : ''}Asked (round ${round}):\n${asked}`;
}

/** `## Questions` with a person's answer to the last round. Pure. */
export function withAnswer(section: string | undefined, answer: string): string {
  const previous = (section ?? '').trimEnd();
  const text = inertHeadings(answer.trim()).replace(/\n+/g, ' ');
  return `${previous ? `${previous}\n` : ''}Answered: ${text}`;
}

/** The last round's questions, on one line each, for a notification's reason; null when none was asked. Pure. */
export function lastAsked(section: string | undefined): string | null {
  const text = section ?? '';
  const at = text.lastIndexOf('Asked (round ');
  if (at < 0) return null;
  const lines = text.slice(at).split('\n').slice(1);
  const asked = [];
  for (const line of lines) {
    if (!/^\d+\. /.test(line)) break;
    asked.push(line);
  }
  return asked.length > 0 ? asked.join(' ') : null;
}

function oneLine(text: string): string {
  return inertHeadings(text).replace(/\s+/g, ' ').trim();
}
