import { useQuery } from '@tanstack/react-query';
import { apiUrl } from '../../../lib/api-client';

type Preview = { state: 'ready'; url: string } | { state: 'pending' } | { state: 'none'; reason: string };

/** The PNG as a data: URL: it goes with the cached answer it belongs to (an object URL would outlive every refresh). */
const dataUrl = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error('The preview could not be read'));
    reader.readAsDataURL(blob);
  });

/** GET .../preview: 200 a PNG, 202 while the worker renders it (asked again), else none. */
export async function getTemplatePreview(id: string, isUat: boolean): Promise<Preview> {
  const response = await fetch(apiUrl(`/templates/${encodeURIComponent(id)}/preview`, { is_uat: isUat }), { credentials: 'same-origin' });
  if (response.status === 200) return { state: 'ready', url: await dataUrl(await response.blob()) };
  if (response.status === 202) return { state: 'pending' };
  const body = (await response.json().catch(() => null)) as { detail?: string } | null;
  return { state: 'none', reason: body?.detail ?? `HTTP ${response.status}` };
}

export function useTemplatePreview(id: string, isUat: boolean) {
  return useQuery({
    queryKey: ['template', id, { isUat }, 'preview'],
    queryFn: () => getTemplatePreview(id, isUat),
    staleTime: Infinity,
    refetchInterval: (q) => (q.state.data?.state === 'pending' ? 2_000 : false),
  });
}
