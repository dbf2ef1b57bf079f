import { useTemplatePreview } from '../api/get-template-preview';

/** The first page as uploaded, tags visible; nothing when the server has no preview. */
export function TemplatePreview({ id, isUat, name }: { id: string; isUat: boolean; name: string }) {
  const preview = useTemplatePreview(id, isUat);
  const data = preview.data;
  if (!data || data.state === 'none') return null;
  return (
    <details className="card preview">
      <summary>Preview of the first page</summary>
      {data.state === 'ready' ? <img src={data.url} alt={`First page of ${name} as uploaded, with its tags`} /> : <p aria-live="polite">The preview is being prepared…</p>}
    </details>
  );
}
