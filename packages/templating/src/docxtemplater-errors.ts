import { rowLoopAdvice } from './check-loop-placement';
import { partLabel } from './docx-package';
import type { TemplateIssue } from './template-error';

interface DocxtemplaterErrorProperties {
  id?: string;
  xtag?: string;
  file?: string;
  explanation?: string;
  openingtag?: string;
  closingtag?: string;
  lastPair?: { left: string; right: string };
  pair?: { left: string; right: string };
  errors?: { properties?: DocxtemplaterErrorProperties; message?: string }[];
}

function describe(props: DocxtemplaterErrorProperties): Omit<TemplateIssue, 'part'> {
  const tag = props.xtag ?? '';
  switch (props.id) {
    case 'unclosed_tag':
      return { tag: `{${tag}`, message: `The tag "{${tag}" is not closed; add "}" at the end of the tag name` };
    case 'unopened_tag':
      return { tag: `${tag}}`, message: `The tag "${tag}}" has no opening "{"; add "{" before it or remove the "}"` };
    case 'duplicate_open_tag':
      return { tag: `{{${tag}`, message: `"{{" opens the tag "${tag}"; tags use single braces, e.g. {${tag.replace(/^\{+/, '')}}` };
    case 'duplicate_close_tag':
      return { tag: `${tag}}}`, message: `"}}" closes the tag "${tag}"; tags use single braces, e.g. {${tag.replace(/\}+$/, '')}}` };
    case 'unclosed_loop':
      return { tag: `{#${tag}}`, message: `The loop "{#${tag}}" is never closed; add "{/${tag}}" where the repeated part ends` };
    case 'unopened_loop':
      return { tag: `{/${tag}}`, message: `"{/${tag}}" ends a loop that was never started; add "{#${tag}}" where the repeated part starts, or remove it` };
    case 'closing_tag_does_not_match_opening_tag':
      return {
        tag: `{#${props.openingtag}}`,
        message: `The loop "{#${props.openingtag}}" is closed by "{/${props.closingtag}}"; close it with "{/${props.openingtag}}"`,
      };
    case 'loop_position_invalid':
      return {
        tag: `{#${tag}}`,
        message: `The loop "${tag}" starts inside a table and ends outside it (or the reverse); ${rowLoopAdvice(tag)}`,
      };
    case 'unbalanced_loop_tags':
      return {
        tag: `{#${props.pair?.left}}`,
        message: `The loops "${props.lastPair?.left}" and "${props.pair?.left}" overlap in a table; nest one loop entirely inside the other (for a row loop, ${rowLoopAdvice(props.pair?.left ?? '')})`,
      };
    case 'raw_xml_tag_should_be_only_text_in_paragraph':
    case 'raw_tag_outerxml_invalid':
      return { tag: `{@${tag}}`, message: 'Raw XML tags ({@name}) are not supported; use {name}' };
    default:
      return { ...(tag ? { tag } : {}), message: props.explanation ?? 'The template could not be read' };
  }
}

/** Turns docxtemplater's (multi-)error into one issue per problem. */
export function issuesFromDocxtemplater(error: unknown): TemplateIssue[] | undefined {
  const props = (error as { properties?: DocxtemplaterErrorProperties }).properties;
  if (!props) return undefined;
  const all = props.id === 'multi_error' && props.errors ? props.errors.map((inner) => inner.properties ?? {}) : [props];
  return all.map((p) => ({ ...describe(p), part: p.file ? partLabel(p.file) : 'body' }));
}
