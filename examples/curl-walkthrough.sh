#!/usr/bin/env bash
# The docgen API with curl and jq: upload a template, ask for a PDF, wait, download.
#   DOCGEN_URL=http://127.0.0.1:8080 DOCGEN_API_KEY=svc_... bash examples/curl-walkthrough.sh [invoice.pdf]
set -euo pipefail
HERE="$(dirname "$0")"
URL="${DOCGEN_URL:-http://127.0.0.1:8080}/api/v1"
OUT="${1:-invoice.pdf}"
: "${DOCGEN_API_KEY:?Set DOCGEN_API_KEY to your API key (svc_...)}"
api() { curl -sS --fail-with-body -H "X-API-Key: $DOCGEN_API_KEY" "$@"; }

echo "1. Upload the template (tags such as {client name} become {client_name})" >&2
TEMPLATE_ID=$(api -F "file=@$HERE/sample-invoice.html" -F "name=Sample invoice" "$URL/templates" | jq -r .id)
api "$URL/templates/$TEMPLATE_ID" | jq -c '{id, name, variables: [.variables[].name]}' >&2

echo "2. Ask for a PDF; the idempotency key makes a retry of this request safe" >&2
KEY="walkthrough-$(date +%s)-$RANDOM"
DOCUMENT_ID=$(jq -c --arg t "$TEMPLATE_ID" '{template_id: $t, input_json: ., output_format: "pdf"}' "$HERE/invoice-data.json" |
  api -H 'Content-Type: application/json' -H "X-Idempotency-Key: $KEY" --data-binary @- "$URL/documents" | jq -r .id)
echo "   document $DOCUMENT_ID queued" >&2

echo "3. Wait until it is ready (or use a webhook instead of polling)" >&2
for _ in $(seq 1 120); do
  DOCUMENT=$(api "$URL/documents/$DOCUMENT_ID")
  STATUS=$(jq -r .status <<<"$DOCUMENT")
  echo "   $STATUS" >&2
  case "$STATUS" in
    ready) break ;;
    failed) echo "failed: $(jq -r .error_message <<<"$DOCUMENT")" >&2; exit 1 ;;
  esac
  sleep 0.5
done
[ "$STATUS" = ready ] || { echo "still $STATUS after a minute" >&2; exit 1; }

echo "4. Download it" >&2
api -o "$OUT" "$URL/documents/$DOCUMENT_ID/download?format=pdf"
echo "saved $OUT" >&2
