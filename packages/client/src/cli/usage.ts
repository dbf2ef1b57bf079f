export const USAGE = `Usage: docgen-client <command> [options]

Commands:
  generate --template <id> --data <file.json|-> [--format pdf|docx|both] [--out <file>]
           [--idempotency-key <key>] [--timeout <seconds>] [--uat]
      Generates a document and waits for it; with --out saves the file (for "both",
      <out>.pdf and <out>.docx). Prints the document as JSON on stdout.
  templates list [--limit <n>] [--cursor <cursor>] [--uat]
  documents get <id> [--uat]
  bulk --template <id> --rows <rows.xlsx|rows.csv> --out <out.zip> [--format pdf|docx|both]
       [--timeout <seconds>] [--uat]
      Runs a bulk job with row progress and saves its ZIP.

Environment: DOCGEN_API_KEY (required), DOCGEN_URL (default http://127.0.0.1:8080).
Exit codes: 0 done; 1 the document or a row failed, or the service refused or was unreachable; 2 usage.`;

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {}
