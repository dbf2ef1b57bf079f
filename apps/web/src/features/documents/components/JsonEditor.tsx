import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { useEffect, useRef } from 'react';
import type { JsonSchema } from '../../../lib/api-types';
import { checkInput, type InputProblem } from './schema-check';

// JSON's colours from the page's variables (styles.css), so they follow dark mode; custom
// properties inherit into the shadow root.
const jsonHighlight = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--code-key)' },
  { tag: tags.string, color: 'var(--code-string)' },
  { tag: tags.number, color: 'var(--code-number)' },
  { tag: [tags.bool, tags.null], color: 'var(--code-atom)' },
]);

interface Props {
  value: string;
  schema: JsonSchema | undefined;
  onChange: (text: string, problems: InputProblem[]) => void;
}

/** CodeMirror 6 with JSON syntax and the template's schema as a lint source. Loaded lazily. */
export default function JsonEditor({ value, schema, onChange }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef({ schema, onChange });
  latest.current = { schema, onChange };

  useEffect(() => {
    const parseLint = jsonParseLinter();
    const schemaLint = (v: EditorView): Diagnostic[] => {
      const syntax = parseLint(v);
      if (syntax.length) return syntax;
      return checkInput(v.state.doc.toString(), latest.current.schema).problems.map((problem) => ({
        from: 0,
        to: Math.min(1, v.state.doc.length),
        severity: 'error',
        message: problem.message,
      }));
    };
    // Inside a shadow root CodeMirror styles itself with constructed style sheets; on the
    // document it would add <style> elements, which the CSP (style-src 'self') refuses.
    const shadow = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: 'open' });
    const created = new EditorView({
      root: shadow,
      parent: shadow,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          indentOnInput(),
          bracketMatching(),
          syntaxHighlighting(jsonHighlight),
          json(),
          linter(schemaLint, { delay: 300 }),
          lintGutter(),
          // Tab is left to move focus, so the editor never traps the keyboard.
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          EditorView.theme({
            '&': { minHeight: '12rem', fontSize: '14px', backgroundColor: 'var(--field)', color: 'var(--fg)' },
            '.cm-gutters': { backgroundColor: 'var(--readonly)', color: 'var(--muted)', borderColor: 'var(--line)' },
            '.cm-activeLineGutter': { backgroundColor: 'var(--hover)' },
            '.cm-content': { caretColor: 'var(--fg)' },
            '&.cm-focused': { outline: '3px solid #f0a500' },
            '.cm-scroller': { fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace' },
          }),
          EditorView.contentAttributes.of({ 'aria-label': 'Input JSON' }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const text = update.state.doc.toString();
            latest.current.onChange(text, checkInput(text, latest.current.schema).problems);
          }),
        ],
      }),
    });
    view.current = created;
    latest.current.onChange(value, checkInput(value, latest.current.schema).problems);
    return () => created.destroy();
    // The editor is created once; outside changes of `value` are applied below.
  }, []);

  useEffect(() => {
    const current = view.current;
    if (current && current.state.doc.toString() !== value) {
      current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: value } });
    }
  }, [value]);

  useEffect(() => {
    const current = view.current;
    if (current) latest.current.onChange(current.state.doc.toString(), checkInput(current.state.doc.toString(), schema).problems);
  }, [schema]);

  return <div ref={host} className="json-editor" />;
}
