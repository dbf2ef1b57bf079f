import { DOMParser, type Document, type Element, type Node, type Text } from '@xmldom/xmldom';

/** One `{...}` tag in a part's text, wherever Word split it across runs. */
export interface TagOccurrence {
  /** As written, e.g. "{#items}". */
  raw: string;
  /** The character that gives the tag its meaning: "#", "^", "/", "%", "@" or "". */
  prefix: string;
  /** The name after the prefix, trimmed. */
  name: string;
  /** Offsets of "{" and one past "}" in the part's concatenated text. */
  start: number;
  end: number;
  /** The innermost table holding the tag's "{", if any. */
  table: Element | null;
}

export interface TextSegment {
  node: Text;
  start: number;
  end: number;
}

export interface ScannedPart {
  document: Document;
  text: string;
  segments: TextSegment[];
  tags: TagOccurrence[];
}

const PREFIXES = new Set(['#', '^', '/', '%', '@']);

function innermostTable(node: Node | null): Element | null {
  for (let current = node?.parentNode ?? null; current; current = current.parentNode) {
    if (current.nodeName === 'w:tbl') return current as Element;
  }
  return null;
}

function segmentAt(segments: TextSegment[], offset: number): TextSegment | undefined {
  return segments.find((segment) => offset >= segment.start && offset < segment.end);
}

/**
 * The `{...}` tags of a text, in order, as docxtemplater delimits them: a "{" opens (a later
 * one starts over), the next "}" closes; an unbalanced brace is no tag.
 */
export function braceTags(text: string): { raw: string; inner: string; start: number; end: number }[] {
  const tags: { raw: string; inner: string; start: number; end: number }[] = [];
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') open = i;
    else if (text[i] === '}' && open >= 0) {
      const raw = text.slice(open, i + 1);
      tags.push({ raw, inner: raw.slice(1, -1).trim(), start: open, end: i + 1 });
      open = -1;
    }
  }
  return tags;
}

/**
 * Reads a WordprocessingML part the way docxtemplater does: the text of every <w:t>, in
 * document order, as one string, so a tag split over several runs is still one tag.
 * Unbalanced braces are skipped here; docxtemplater reports them.
 */
export function scanPart(xml: string): ScannedPart {
  const document = new DOMParser().parseFromString(xml, 'text/xml');
  const segments: TextSegment[] = [];
  let text = '';
  const textElements = document.getElementsByTagName('w:t');
  for (let i = 0; i < textElements.length; i++) {
    const element = textElements.item(i)!;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType !== child.TEXT_NODE) continue;
      const value = (child as Text).data;
      segments.push({ node: child as Text, start: text.length, end: text.length + value.length });
      text += value;
    }
  }

  const tags: TagOccurrence[] = braceTags(text).map(({ raw, inner, start, end }) => {
    const prefix = PREFIXES.has(inner[0] ?? '') ? inner[0]! : '';
    return { raw, prefix, name: inner.slice(prefix.length).trim(), start, end, table: innermostTable(segmentAt(segments, start)?.node ?? null) };
  });
  return { document, text, segments, tags };
}

/**
 * Replaces the characters [start, end) of the part's text with `replacement`, editing the
 * text nodes in place: the first node gets the new text, the others lose their share.
 * Edits must be applied from the end of the text backwards.
 */
export function replaceText(part: ScannedPart, start: number, end: number, replacement: string): void {
  let first = true;
  for (const segment of part.segments) {
    if (segment.end <= start || segment.start >= end) continue;
    const from = Math.max(start, segment.start) - segment.start;
    const to = Math.min(end, segment.end) - segment.start;
    const data = segment.node.data;
    segment.node.data = data.slice(0, from) + (first ? replacement : '') + data.slice(to);
    first = false;
  }
}
