import { useEffect } from 'react';

export function usePageTitle(title: string | undefined): void {
  useEffect(() => {
    if (title) document.title = `${title} · docgen`;
  }, [title]);
}
