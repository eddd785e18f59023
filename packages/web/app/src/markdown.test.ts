import type { ComponentChildren, VNode } from 'preact';
import { describe, expect, it } from 'vitest';
import { decodeEntities, markdownNodes, questionsIn } from './markdown';

type Node = VNode<{ children?: ComponentChildren; [prop: string]: unknown }>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'type' in value && 'props' in value;
}

function childrenOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(childrenOf);
  if (isNode(value)) return childrenOf(value.props.children);
  return value === null || value === undefined || typeof value === 'boolean' ? [] : [value];
}

/** Every element in the tree, depth first. */
function elements(value: unknown): Node[] {
  if (Array.isArray(value)) return value.flatMap(elements);
  if (!isNode(value)) return [];
  return [value, ...elements(value.props.children)];
}

/** The text the tree shows. */
function textOf(value: unknown): string {
  if (Array.isArray(value)) return value.map(textOf).join('');
  if (isNode(value)) return textOf(value.props.children);
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

const ofType = (tree: unknown, type: string) => elements(tree).filter((e) => e.type === type);

describe('markdownNodes', () => {
  it('builds headings, paragraphs, emphasis and inline code as elements', () => {
    const tree = markdownNodes('# Title\n\nSome *em* and **strong** with `code`.\n\n### Small');
    expect(ofType(tree, 'h1').map(textOf)).toEqual(['Title']);
    expect(ofType(tree, 'h3').map(textOf)).toEqual(['Small']);
    expect(ofType(tree, 'em').map(textOf)).toEqual(['em']);
    expect(ofType(tree, 'strong').map(textOf)).toEqual(['strong']);
    expect(ofType(tree, 'code').map(textOf)).toEqual(['code']);
    expect(textOf(ofType(tree, 'p'))).toBe('Some em and strong with code.');
  });

  it('shows raw HTML as literal text, never as elements', () => {
    const tree = markdownNodes('<script>alert(1)</script>\n\nHi <img src=x onerror=alert(1)> <b>bold</b>');
    const types = new Set(elements(tree).map((e) => e.type));
    expect(types.has('script')).toBe(false);
    expect(types.has('img')).toBe(false);
    expect(types.has('b')).toBe(false);
    expect(textOf(tree)).toContain('<script>alert(1)</script>');
    expect(textOf(tree)).toContain('<img src=x onerror=alert(1)>');
    expect(textOf(tree)).toContain('<b>bold</b>');
    // No prop anywhere carries HTML to be parsed.
    expect(elements(tree).some((e) => 'dangerouslySetInnerHTML' in e.props)).toBe(false);
  });

  it('makes links only of http(s) targets; others stay plain text', () => {
    const tree = markdownNodes('[ok](https://example.com/a) [bad](javascript:alert(1)) [data](data:text/html,x) [rel](/api/tasks) <http://plain.example>');
    const links = ofType(tree, 'a');
    expect(links.map((a) => a.props.href)).toEqual(['https://example.com/a', 'http://plain.example/']);
    expect(links.every((a) => a.props.rel === 'noopener noreferrer nofollow')).toBe(true);
    expect(textOf(tree)).toContain('bad');
    expect(textOf(tree)).toContain('rel');
  });

  it('draws task lists with disabled checkboxes', () => {
    const tree = markdownNodes('- [ ] todo\n- [x] done\n- plain');
    const boxes = ofType(tree, 'input');
    expect(boxes.map((b) => [b.props.type, b.props.checked, b.props.disabled])).toEqual([
      ['checkbox', false, true],
      ['checkbox', true, true],
    ]);
    expect(ofType(tree, 'li').map(textOf)).toEqual(['todo', 'done', 'plain']);
  });

  it('keeps code blocks as text, with their language', () => {
    const tree = markdownNodes('```ts\nconst a = "<b>";\n```');
    const pre = ofType(tree, 'pre')[0];
    expect(pre?.props['data-lang']).toBe('ts');
    expect(textOf(pre)).toBe('const a = "<b>";');
  });

  it('builds tables, blockquotes and ordered lists', () => {
    const tree = markdownNodes('| a | b |\n|:-|-:|\n| 1 | <i>2</i> |\n\n> quoted\n\n3. three\n4. four');
    expect(ofType(tree, 'th').map(textOf)).toEqual(['a', 'b']);
    expect(ofType(tree, 'td').map(textOf)).toEqual(['1', '<i>2</i>']);
    expect(ofType(tree, 'i')).toEqual([]);
    expect(textOf(ofType(tree, 'blockquote'))).toBe('quoted');
    expect(ofType(tree, 'ol')[0]?.props.start).toBe(3);
  });

  it('makes control characters visible instead of letting them act', () => {
    const tree = markdownNodes('evil \u001b]0;title\u0007 and \u202egnp.exe');
    const text = textOf(tree);
    expect(text).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(text).toContain('␛]0;title␇');
    expect(text).toContain('\\u202e');
  });

  it('decodes character references in text, only there', () => {
    expect(decodeEntities('a &amp; b &lt;c&gt; &#65; &#x42; &bogus;')).toBe('a & b <c> A B &bogus;');
    const tree = markdownNodes('Tom &amp; Jerry `&amp;`');
    expect(textOf(tree)).toBe('Tom & Jerry &amp;');
  });
});

describe('questionsIn', () => {
  it("reads the ## Questions section up to the next level-2 heading", () => {
    expect(questionsIn('# T\n\n## Questions\n\n1. Which one?\n\n### detail\nmore\n\n## Notes\nx')).toBe('1. Which one?\n\n### detail\nmore');
  });

  it('skips headings inside fenced code, and says null without the section', () => {
    expect(questionsIn('## Questions\n```\n## Not a heading\n```\nok')).toBe('```\n## Not a heading\n```\nok');
    expect(questionsIn('## Notes\nnothing')).toBeNull();
    expect(questionsIn('## Questions\n\n')).toBeNull();
  });
});

// The helpers above read Preact's vnode shape; make sure it is the one they expect.
it('reads vnodes as the helpers expect', () => {
  expect(childrenOf(markdownNodes('hello'))).toEqual(['hello']);
});
