import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import { braceTags } from '../tag-scanner';

// Where HTML allows no text of its own: a browser's parser moves text found here out of
// the table or list, so a section tag written here is read in its element's terms.
const STRUCTURAL = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr', 'ul', 'ol', 'dl', 'colgroup']);

interface SectionTag {
  raw: string;
  kind: 'open' | 'close' | 'other';
  name: string;
}

/** The `{...}` tags of a text, in order, as sections see them. */
function tagsIn(text: string): SectionTag[] {
  return braceTags(text).map(({ raw, inner }) => {
    const kind = inner.startsWith('#') || inner.startsWith('^') ? 'open' : inner.startsWith('/') ? 'close' : 'other';
    return { raw, kind, name: kind === 'other' ? inner : inner.slice(1).trim() };
  });
}

const isElement = (node: AnyNode): node is Element => node.type === 'tag';
const isText = (node: AnyNode): node is Text => node.type === 'text';

function textNodes(node: AnyNode, into: Text[] = []): Text[] {
  if (isText(node)) into.push(node);
  else if ('children' in node) for (const child of node.children) textNodes(child, into);
  return into;
}

/**
 * §2's cell form, a section opened in a row's first cell and closed in its last
 * (`<tr><td>{#items}{a}</td><td>{b}{/items}</td></tr>`), rewritten to the HTML form that
 * wraps the row (`{#items}<tr>…</tr>{/items}`), which is what the cell form means in DOCX.
 * Works on a tree parsed without HTML's table fix-ups (htmlparser2), so text between rows stays put.
 */
export function sectionsAroundRows($: CheerioAPI): void {
  $('tr').each((_, row) => {
    const cells = row.children.filter(isElement).filter((cell) => cell.name === 'td' || cell.name === 'th');
    const stack: { tag: SectionTag; cell: number; node: Text }[] = [];
    const spanning: { open: { tag: SectionTag; node: Text }; close: { tag: SectionTag; node: Text } }[] = [];
    cells.forEach((cell, index) => {
      for (const node of textNodes(cell)) {
        for (const tag of tagsIn(node.data)) {
          if (tag.kind === 'open') stack.push({ tag, cell: index, node });
          else if (tag.kind === 'close') {
            const open = stack.pop();
            if (open && open.cell !== index && (tag.name === '' || tag.name === open.tag.name)) spanning.push({ open, close: { tag, node } });
          }
        }
      }
    });
    if (spanning.length === 0) return;
    // Outermost first: its open goes first before the row, its close last after it.
    spanning.reverse();
    for (const { open, close } of spanning) {
      open.node.data = open.node.data.replace(open.tag.raw, '');
      close.node.data = close.node.data.replace(close.tag.raw, '');
    }
    $(row).before(spanning.map(({ open }) => open.tag.raw).join(''));
    $(row).after(
      spanning
        .map(({ close }) => close.tag.raw)
        .reverse()
        .join(''),
    );
  });
}

/**
 * The reverse, for LibreOffice's HTML import (the DOCX made from an HTML template), whose
 * parser moves text out of tables and lists: section tags written between rows or list
 * items go into the first and last of the elements they wrap (the cell form for rows).
 */
export function sectionsIntoElements($: CheerioAPI): void {
  const strays: Text[] = [];
  $('*').each((_, node) => {
    if (!isElement(node) || !STRUCTURAL.has(node.name)) return;
    const element = node;
    for (const child of element.children) if (isText(child) && child.data.trim()) strays.push(child);
  });
  for (const node of strays) {
    const tags = tagsIn(node.data);
    const siblings = node.parent ? node.parent.children : [];
    const index = siblings.indexOf(node);
    const next = siblings.slice(index + 1).find(isElement);
    const previous = siblings.slice(0, index).reverse().find(isElement);
    for (const tag of tags) {
      if (tag.kind === 'close' && previous) $(edgeCell(previous, 'last')).append(tag.raw);
      else if (next) $(edgeCell(next, 'first')).prepend(tag.raw);
      else if (previous) $(edgeCell(previous, 'last')).append(tag.raw);
    }
    $(node).remove();
  }
}

function edgeCell(element: Element, edge: 'first' | 'last'): Element {
  if (element.name !== 'tr') return element;
  const cells = element.children.filter(isElement).filter((cell) => cell.name === 'td' || cell.name === 'th');
  return (edge === 'first' ? cells[0] : cells[cells.length - 1]) ?? element;
}
