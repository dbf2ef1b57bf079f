import { BulkInputError } from './bulk-input-error';

/**
 * Passes the rows through, failing when the next one takes longer than `ms` to come.
 * ExcelJS's streaming reader can wait forever on a damaged archive (a local header that
 * disagrees with the directory, found by the upload fuzz test) without reporting an error.
 */
export async function* withStallLimit<T>(source: AsyncGenerator<T>, ms: number): AsyncGenerator<T> {
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new BulkInputError(
              'spreadsheet_invalid',
              'The .xlsx file could not be read (reading it stalled: the archive is damaged); save it again as Excel Workbook (.xlsx)',
            ),
          ),
        ms,
      );
    });
    try {
      const next = await Promise.race([source.next(), stalled]);
      if (next.done) return;
      yield next.value;
    } finally {
      clearTimeout(timer);
    }
  }
}
