/** A failure the operator can fix; printed as one line on stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(`${message}\n\n${USAGE}`, 2);

export const USAGE = `Usage: npm run -s docgen -- <command>

  orgs create --name <name> [--rate-limit <per-minute>]
  orgs list
  orgs set-rate-limit --org <id|name> --per-minute <n>
  keys create --org <id|name> --name <label> [--expires <ISO 8601 date or date-time>]
  keys list --org <id|name>
  keys revoke <key-id>
  users create --org <id|name> --email <email> [--role admin|member]
  templates check-rendering [--org <id|name>] [--threshold 0.01] [--update] [--out <dir>]
      re-renders every published template version, compares its pages with the stored
      baseline, prints one JSON line each, writes diff PNGs to <dir> (default ./rendering-drift);
      exit 1 when a page changed more than the threshold. --update stores new baselines.
  secrets rewrap   (after a SECRETS_KEY rotation; reads SECRETS_KEY and SECRETS_KEY_PREVIOUS)

Prints one JSON object on stdout (check-rendering: one per line); messages go to stderr. DATABASE_URL selects the database;
keys revoke and orgs set-rate-limit also reach Redis (REDIS_URL, REDIS_KEY_PREFIX) to tell the gateways.`;
