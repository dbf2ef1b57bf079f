import { useLivePreview, type PreviewProblem } from '../api/render-preview';
import './LivePreview.css';

export interface LivePreviewProps {
  templateId: string;
  isUat: boolean;
  templateName: string;
  /** The input as the Form or JSON tab holds it now: the JSON text Generate would send. */
  inputText: string;
  /** Changes when the template's settings do (its updated_at): the page is asked for again. */
  revision?: string;
  /** The version being tried ("Try this version"); the published one when absent. */
  templateVersion?: number;
}

/**
 * The region `Live preview` (API.md §14): the first page filled with the current input,
 * following the Form or JSON tab within about a second of a change, and a `Refresh preview`
 * button. Loaded lazily by the template page.
 */
export default function LivePreview({ templateId, isUat, templateName, inputText, revision, templateVersion }: LivePreviewProps) {
  const { imageUrl, imageVersion, updating, problem, refresh } = useLivePreview(templateId, isUat, inputText, revision, templateVersion);
  // Named after the page on screen, which is the asked version's only once its answer is in.
  const which = imageVersion ? ` of version ${imageVersion}` : '';
  return (
    <section aria-labelledby="live-preview-heading" className="card live-preview">
      <div className="live-preview-head">
        <h2 id="live-preview-heading">Live preview</h2>
        <button type="button" className="secondary" onClick={refresh}>
          Refresh preview
        </button>
      </div>
      {/* Polite, not role=status: the page's one status is the new document's. */}
      <p className="hint live-preview-state" aria-live="polite">
        {updating
          ? 'Updating the preview…'
          : problem
            ? 'The preview shows the last input that could be filled in.'
            : `The first page${which}, filled with the current input.`}
      </p>
      <PreviewProblemText problem={problem} />
      <div className={`live-preview-page${updating || problem ? ' stale' : ''}`}>
        {imageUrl ? (
          <img src={imageUrl} alt={`First page of ${templateName}${which}, filled with the current input`} />
        ) : (
          <p className="hint live-preview-empty">{problem ? 'No preview yet.' : 'Rendering the first page…'}</p>
        )}
      </div>
    </section>
  );
}

function PreviewProblemText({ problem }: { problem?: PreviewProblem }) {
  if (!problem) return null;
  if (problem.kind === 'json') return <p className="live-preview-problem">The JSON is not complete yet; the preview follows once it is valid JSON.</p>;
  if (problem.kind === 'failed') {
    return (
      <div role="alert" className="alert">
        <strong>The preview could not be updated: </strong>
        {problem.message}
      </div>
    );
  }
  // The same problems the Generate button reports; not an alert on every keystroke.
  const messages = [...new Set(problem.errors.length ? problem.errors.map((error) => error.message) : [problem.message])];
  return (
    <div className="live-preview-problem">
      <strong>To update the preview, fix:</strong>
      <ul>
        {messages.map((message) => (
          <li key={message}>{message}</li>
        ))}
      </ul>
    </div>
  );
}
