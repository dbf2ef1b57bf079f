#!/usr/bin/env bash
# `npm test`: install what is missing, build, lint, typecheck, run every workspace's tests
# against the real PostgreSQL, Redis and LibreOffice, and end with "N passed, N failed".
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
# Tests that take Redis away run a private redis-server of their own.
if ! command -v redis-server >/dev/null; then
  is_root && apt_install redis-server || die "The tests need redis-server: sudo apt-get install redis-server"
fi
set +e

rm -rf .test-results && mkdir -p .test-results
say "format, lint and typecheck"
if pnpm exec prettier --check . --log-level warn >&2 && pnpm exec turbo run lint typecheck --output-logs=errors-only >&2; then
  echo '{"passed":1,"failed":0,"skipped":0}' > .test-results/_lint-and-typecheck.json
else
  echo '{"passed":0,"failed":1,"skipped":0}' > .test-results/_lint-and-typecheck.json
fi

# Each test pass runs under stall-guard.cjs: a workspace that prints nothing for ten minutes is
# shown (every process) and killed, and the run goes on, instead of holding CI to its time limit.
say "tests"
node scripts/stall-guard.cjs pnpm exec turbo run test --concurrency=1 --continue --output-logs=full

# The end-to-end generation and bulk files again with STORAGE_DRIVER=s3 (about 2 min), on a
# loopback s3rver per test file; startStack fails a file that wrote to the local STORAGE_DIR.
# (Redirected downloads and 410 after retention: e2e/storage/s3-downloads.test.ts, in the pass above.)
say "end-to-end tests on S3 storage"
(cd e2e && TEST_STORAGE_DRIVER=s3 node ../scripts/stall-guard.cjs npx jest generation/generation.test.ts bulk/bulk.test.ts)
# Not a workspace of its own, so the summary would not miss it: a pass killed before it reported counts here.
[ -f .test-results/e2e-s3.json ] || echo '{"passed":0,"failed":1,"skipped":0}' > .test-results/e2e-s3.json
node scripts/summarize-tests.cjs
