const MiB = 1024 * 1024;

/** An xlsx's unzipped size: the zip-bomb guard, which also bounds its shared strings. */
export const MAX_EXPANDED_XLSX_BYTES = 100 * MiB;

/**
 * The input_json of a sheet's rows together, as JSON. A long text repeated in many cells is
 * stored once in an xlsx's shared strings but copied into every row's input (into the
 * gateway, then PostgreSQL): 30 KB uploaded could be gigabytes. 100 MiB is what a sheet can
 * carry without repeats, under MAX_EXPANDED_XLSX_BYTES.
 */
export const MAX_BULK_INPUT_BYTES = 100 * MiB;

/** The last row a spreadsheet has (Excel's grid); documents.row_number holds it. */
export const MAX_SHEET_ROW = 1_048_576;
