import { BulkInputError } from './bulk-input-error';

/**
 * Passes the rows through, failing when the next one takes longer than `ms` to come.
 * ExcelJS's streaming reader can wait forever on a damaged archive (a local header that
 * disagrees with the directory, found by the upload fuzz test) without reporting an error.
 * However it ends (the caller stops early, a refusal, the stall), the source is closed so
 * it lets go of what it holds.
 */
export async function* withStallLimit<T>(source: AsyncGenerator<T>, ms: number): AsyncGenerator<T> {
  let stalled = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const stall = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          stalled = true;
          reject(
            new BulkInputError(
              'spreadsheet_invalid',
              'The .xlsx file could not be read (reading it stalled: the archive is damaged); save it again as Excel Workbook (.xlsx)',
            ),
          );
        }, ms);
      });
      try {
        const next = await Promise.race([source.next(), stall]);
        if (next.done) return;
        yield next.value;
      } finally {
        clearTimeout(timer);
      }
    }
  } finally {
    // A stalled source closes only after its step that never ends: not waited for.
    const closed = source.return(undefined).catch(() => undefined);
    if (!stalled) await closed;
  }
}
