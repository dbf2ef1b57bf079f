import { DOMParser, onErrorStopParsing, type Element, type Node } from '@xmldom/xmldom';

/**
 * Word fields that make LibreOffice (or Word) read another file, address or program:
 * pictures and documents pulled in by INCLUDEPICTURE/INCLUDETEXT (IMPORT and INCLUDE are
 * their old names), and OLE/DDE links to another file or a running program (LINK, DDE,
 * DDEAUTO).
 */
export const FETCHING_FIELD_TYPES = ['INCLUDEPICTURE', 'INCLUDETEXT', 'IMPORT', 'INCLUDE', 'LINK', 'DDE', 'DDEAUTO'] as const;

// The field type is the instruction's first word (LibreOffice also accepts it in quotes).
const FIELD_TYPE = /^[\s"]*([A-Za-z]+)/;
// Names that are never an ordinary word: refused wherever they appear in an instruction, so a
// type built by a nested field, or written after something LibreOffice skips, is caught too.
const FETCHING_ANYWHERE = /\b(INCLUDEPICTURE|INCLUDETEXT|DDEAUTO)\b/i;
// Element and attribute names cannot be written with character references, so a part
// without these letters holds no field at all and need not be parsed.
const MAY_HOLD_FIELDS = /fldChar|fldSimple|instr/i;
// Text that LibreOffice appends to an open field's instruction (it reads <w:t> between
// "begin" and "separate" as instruction text, as it does <w:instrText>).
const TEXT_ELEMENTS = new Set(['t', 'instrText', 'delInstrText', 'delText']);
const INSTRUCTION_ELEMENTS = new Set(['instrText', 'delInstrText']);

interface OpenField {
  /** What Word runs: this field's own text, with nested fields replaced by their results. */
  instruction: string;
  /** Everything written between "begin" and "separate", nested fields' instructions included. */
  raw: string;
  inResult: boolean;
}

/** Thrown for a part that may hold fields but cannot be parsed, so its fields cannot be checked. */
export class UnreadableFieldsError extends Error {
  override name = 'UnreadableFieldsError';
}

/**
 * The fetching field types (upper case, each once) used in a WordprocessingML part, read the
 * way LibreOffice reads them: a complex field's instruction is all the text from its
 * `fldChar begin` to its `separate` (or `end`), however many runs Word split it into, with
 * character references decoded; a simple field's is its `instr` attribute. Elements are
 * matched by local name whatever their namespace prefix.
 */
export function fetchingFieldsIn(xml: string): string[] {
  if (!MAY_HOLD_FIELDS.test(xml)) return [];
  let root: Element | null;
  try {
    root = new DOMParser({ onError: onErrorStopParsing }).parseFromString(xml, 'text/xml').documentElement;
  } catch (error) {
    throw new UnreadableFieldsError((error as Error).message);
  }
  const found = new Set<string>();
  const check = (instruction: string, raw = instruction) => {
    const type = FIELD_TYPE.exec(instruction)?.[1]?.toUpperCase();
    if (type && (FETCHING_FIELD_TYPES as readonly string[]).includes(type)) found.add(type);
    for (const text of [instruction, raw]) {
      const anywhere = FETCHING_ANYWHERE.exec(text)?.[1];
      if (anywhere) found.add(anywhere.toUpperCase());
    }
  };

  const open: OpenField[] = [];
  // Depth-first in document order, without recursion: a deeply nested part cannot overflow the stack.
  const pending: Node[] = root ? [root] : [];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.nodeType !== node.ELEMENT_NODE) continue;
    const element = node as Element;
    const name = element.localName ?? element.nodeName;
    if (name === 'fldChar') {
      const type = attributeByLocalName(element, 'fldCharType');
      if (type === 'begin') open.push({ instruction: '', raw: '', inResult: false });
      else if (type === 'separate' && open.length > 0) open[open.length - 1]!.inResult = true;
      else if (type === 'end') {
        const field = open.pop();
        if (field) check(field.instruction, field.raw);
      }
    } else if (name === 'fldSimple') {
      check(attributeByLocalName(element, 'instr') ?? '');
    } else if (TEXT_ELEMENTS.has(name)) {
      const text = element.textContent ?? '';
      for (const field of open) if (!field.inResult) field.raw += text;
      // The innermost field still reading its instruction gets the text: its own, or the
      // result of a field nested in it.
      const reading = [...open].reverse().find((field) => !field.inResult);
      if (reading) reading.instruction += text;
      else if (INSTRUCTION_ELEMENTS.has(name)) check(text);
      continue;
    }
    for (let child = element.lastChild; child; child = child.previousSibling) pending.push(child);
  }
  for (const field of open) check(field.instruction, field.raw);
  return [...found];
}

function attributeByLocalName(element: Element, localName: string): string | undefined {
  for (let i = 0; i < element.attributes.length; i++) {
    const attribute = element.attributes.item(i)!;
    if ((attribute.localName ?? attribute.name) === localName) return attribute.value;
  }
  return undefined;
}
