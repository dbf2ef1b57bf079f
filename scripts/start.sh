#!/usr/bin/env bash
# `npm start`: install what is missing, migrate, seed a demo organisation, run all services.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"

say "applying migrations"
node packages/db/dist/migrate-cli.js >/dev/null
node apps/cli/dist/main.js demo seed --key-file data/demo-api-key.json >/dev/null
exec node scripts/run-services.cjs
