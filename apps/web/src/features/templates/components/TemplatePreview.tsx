import { useTemplatePreview } from '../api/get-template-preview';

/** The first page as uploaded, tags visible; a placeholder while it renders or when there is none. */
export function TemplatePreview({ id, isUat, name }: { id: string; isUat: boolean; name: string }) {
  const preview = useTemplatePreview(id, isUat);
  const data = preview.data;
  if (data?.state === 'ready') {
    return (
      <details className="card preview">
        <summary>Preview of the first page</summary>
        <img src={data.url} alt={`First page of ${name} as uploaded, with its tags`} />
      </details>
    );
  }
  // A live region, not role=status: the template page's one status is the document's.
  return (
    <p className="card preview hint" aria-live="polite">
      {data?.state === 'none' ? 'No preview for this template' : 'The preview is being prepared…'}
    </p>
  );
}
