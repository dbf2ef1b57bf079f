import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, type FieldError } from '../../../lib/api-client';
import type { TemplatePreviewRequest } from '../../../lib/api-types';

/** POST .../preview: the first page filled with the input, a PNG (nothing is stored). */
export function renderPreview(id: string, isUat: boolean, body: TemplatePreviewRequest, signal?: AbortSignal): Promise<Blob> {
  return api<Blob>(`/templates/${encodeURIComponent(id)}/preview`, { method: 'POST', query: { is_uat: isUat }, json: body, signal, accept: 'blob' });
}

/** Typing pauses this long before the preview is asked for: one request per pause, not per key. */
export const PREVIEW_DEBOUNCE_MS = 500;
/** The longest wait between automatic retries of a refused preview (429, 503). */
const MAX_RETRY_WAIT_S = 30;

/** The n-th refusal in a row waits the server's Retry-After or 2^(n-1) s, whichever is longer, at most 30 s (2, 2, 4, 8, 16, 30 s after Retry-After: 2): an open page never hammers a server that is down. */
export const retryWaitSeconds = (retryAfterSeconds: number, refusalsInARow: number): number =>
  Math.min(MAX_RETRY_WAIT_S, Math.max(retryAfterSeconds, 2 ** (refusalsInARow - 1)));

export type PreviewProblem =
  /** The input cannot be filled in yet (422): what to fix, in the API's words. */
  | { kind: 'input'; message: string; errors: FieldError[] }
  /** The JSON tab's text is not JSON. */
  | { kind: 'json' }
  /** Anything else (rate limit, no worker, offline): a sentence. */
  | { kind: 'failed'; message: string };

export interface LivePreviewState {
  /** An object URL of the latest page rendered (kept while a newer one is refused or on its way). */
  imageUrl?: string;
  /** The version that page was rendered with (undefined: the published one). */
  imageVersion?: number;
  updating: boolean;
  problem?: PreviewProblem;
  /** Asks again now, whatever the debounce. */
  refresh: () => void;
}

/**
 * The live preview's data: `inputText` (the JSON the Generate button would send) is rendered
 * PREVIEW_DEBOUNCE_MS after it or the template's `revision` (its updated_at: types, formats,
 * locale) last changed, with `version` (one being tried) or else the published version. Only the newest request counts: an older one is
 * aborted, and an answer that arrives after a newer request started is dropped. A 429 or a
 * 503 (no worker rendered it in time) asks again by itself once its Retry-After has passed,
 * waiting longer after each refusal in a row (retryWaitSeconds), so the preview comes back
 * once the workers do.
 */
export function useLivePreview(id: string, isUat: boolean, inputText: string, revision?: string, version?: number): LivePreviewState {
  const [imageUrl, setImageUrl] = useState<string>();
  const [imageVersion, setImageVersion] = useState<number>();
  const [updating, setUpdating] = useState(false);
  const [problem, setProblem] = useState<PreviewProblem>();
  const latest = useRef<{ seq: number; controller?: AbortController }>({ seq: 0 });
  const retryTimer = useRef<number | undefined>(undefined);
  const refusalsInARow = useRef(0);
  const inputRef = useRef(inputText);
  inputRef.current = inputText;

  const run = useCallback(
    async (automatic = false) => {
      window.clearTimeout(retryTimer.current);
      if (!automatic) refusalsInARow.current = 0;
      latest.current.controller?.abort();
      const seq = latest.current.seq + 1;
      const controller = new AbortController();
      latest.current = { seq, controller };
      let input: unknown;
      try {
        input = JSON.parse(inputRef.current);
      } catch {
        setUpdating(false);
        setProblem({ kind: 'json' });
        return;
      }
      setUpdating(true);
      try {
        const body: TemplatePreviewRequest = { input_json: input as TemplatePreviewRequest['input_json'], template_version: version };
        const png = await renderPreview(id, isUat, body, controller.signal);
        if (latest.current.seq !== seq) return;
        const url = URL.createObjectURL(png);
        setImageUrl((previous) => {
          if (previous) URL.revokeObjectURL(previous);
          return url;
        });
        setImageVersion(version);
        setProblem(undefined);
        refusalsInARow.current = 0;
      } catch (error) {
        if (latest.current.seq !== seq || (error as Error).name === 'AbortError') return;
        if (error instanceof ApiError && error.status === 422) setProblem({ kind: 'input', message: error.message, errors: error.errors });
        else {
          setProblem({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
          if (error instanceof ApiError && error.retryAfterSeconds) {
            refusalsInARow.current += 1;
            retryTimer.current = window.setTimeout(() => void run(true), retryWaitSeconds(error.retryAfterSeconds, refusalsInARow.current) * 1000);
          }
        }
      } finally {
        if (latest.current.seq === seq) setUpdating(false);
      }
    },
    [id, isUat, version],
  );

  // The first page at once, then PREVIEW_DEBOUNCE_MS after each change.
  const first = useRef(true);
  useEffect(() => {
    const delay = first.current ? 0 : PREVIEW_DEBOUNCE_MS;
    first.current = false;
    // A retry waiting from before asks with the version it was made for: the change supersedes it.
    window.clearTimeout(retryTimer.current);
    const timer = window.setTimeout(() => void run(), delay);
    return () => window.clearTimeout(timer);
  }, [inputText, revision, run]);

  // Leaving the page: nothing in flight, no timer, no object URL left behind.
  useEffect(
    () => () => {
      latest.current.controller?.abort();
      window.clearTimeout(retryTimer.current);
      setImageUrl((previous) => {
        if (previous) URL.revokeObjectURL(previous);
        return undefined;
      });
    },
    [],
  );

  return { imageUrl, imageVersion, updating, problem, refresh: () => void run() };
}
