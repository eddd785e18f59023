import { describe, expect, it } from 'vitest';
import { lastAsked, questionsFrom, withAnswer, withQuestionsAsked } from './questions.js';

describe('clarification questions', () => {
  it('takes a list or lines of text, one inert line each, without numbering, at most five', () => {
    expect(questionsFrom(['1. Which page?', '  - Which browser?\n(desktop)  ', '', 42, '## Plan: hijack'])).toEqual(['Which page?', 'Which browser? (desktop)', '\\## Plan: hijack']);
    expect(questionsFrom('a?\nb?')).toEqual(['a?', 'b?']);
    expect(questionsFrom(Array.from({ length: 9 }, (_, i) => `q${i}?`))).toHaveLength(5);
    expect(questionsFrom('x'.repeat(1000))[0]).toHaveLength(300);
    expect(questionsFrom(undefined)).toEqual([]);
    expect(questionsFrom({ q: 'not a list' })).toEqual([]);
  });

  it('keeps every round asked and every answer, in order, and names the last round for the notification', () => {
    const first = withQuestionsAsked(undefined, ['Which page?', 'Which browser?'], 'unused');
    expect(first).toBe('Asked (round 1):\n1. Which page?\n2. Which browser?');
    expect(lastAsked(first)).toBe('1. Which page? 2. Which browser?');
    const answered = withAnswer(first, 'the login page,\nin Firefox');
    expect(answered).toBe('Asked (round 1):\n1. Which page?\n2. Which browser?\nAnswered: the login page, in Firefox');
    const second = withQuestionsAsked(answered, [], 'What should it do?');
    expect(second).toBe(`${answered}\n\nAsked (round 2):\n1. What should it do?`);
    expect(lastAsked(second)).toBe('1. What should it do?');
    expect(lastAsked('')).toBeNull();
  });

  it('makes an answer inert: a heading in it cannot start a section of TASK.md', () => {
    expect(withAnswer('Asked (round 1):\n1. Why?', '## Plan\nAPPROACH: none')).toBe('Asked (round 1):\n1. Why?\nAnswered: \\## Plan APPROACH: none');
  });
});
