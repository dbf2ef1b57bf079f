// An Express receiver for docgen webhooks: verifies each delivery's signature, answers at
// once, and handles each event once even though delivery is at least once.
//   DOCGEN_WEBHOOK_SECRET=whsec_... PORT=3000 node examples/webhook-receiver.mjs
// DOCGEN_WEBHOOK_SECRET may list several secrets separated by commas while you rotate
// (old endpoint + new endpoint). docgen only delivers to https:// URLs: put this behind
// your TLS proxy, or give it TLS_CERT_FILE and TLS_KEY_FILE to serve HTTPS itself.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import express from 'express';
import { verifyWebhook, WebhookVerificationError } from '@docgen/client';

const secrets = (process.env.DOCGEN_WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
if (secrets.length === 0) throw new Error('Set DOCGEN_WEBHOOK_SECRET to the endpoint secret (whsec_...)');

// In production keep this in your database (a unique key on event, job_id and occurred_at) so it survives restarts.
const handled = new Map(); // "<event>:<job_id>:<occurred_at>" -> when it was handled
const DEDUPE_FOR_MS = 24 * 60 * 60 * 1000;

function handle(event) {
  // Your work goes here: store event.data, notify someone, fetch the PDF, ...
  console.log(JSON.stringify({ handled: event.event, job_id: event.job_id, occurred_at: event.occurred_at, status: event.data.status ?? null }));
}

const app = express();
// The signature covers the exact bytes sent, so read the body raw, not parsed.
app.post('/webhooks/docgen', express.raw({ type: 'application/json', limit: '2mb' }), (req, res) => {
  let event;
  try {
    event = verifyWebhook(secrets, req.headers, req.body);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.log(JSON.stringify({ rejected: error.message }));
    return res.status(400).json({ detail: error.message });
  }
  // One event reaches every retry, and every endpoint (two while you rotate secrets), as the same
  // body: its type, job id and occurred_at name it. Not the type and job id alone: a document
  // failed and retried under its idempotency key keeps its id, and can fail again (a second
  // document.failed) before it is ready. Not the webhook-id: it differs from endpoint to endpoint.
  const key = `${event.event}:${event.job_id}:${event.occurred_at}`;
  const now = Date.now();
  for (const [k, at] of handled) if (now - at > DEDUPE_FOR_MS) handled.delete(k);
  if (handled.has(key)) {
    console.log(JSON.stringify({ duplicate: event.event, job_id: event.job_id, occurred_at: event.occurred_at }));
    return res.sendStatus(204);
  }
  handled.set(key, now);
  res.sendStatus(204); // answer within docgen's 10 s; do slow work after
  setImmediate(() => handle(event));
});

const port = Number(process.env.PORT ?? 3000);
const tls = process.env.TLS_CERT_FILE && process.env.TLS_KEY_FILE;
const server = tls
  ? createServer({ cert: readFileSync(process.env.TLS_CERT_FILE), key: readFileSync(process.env.TLS_KEY_FILE) }, app).listen(port, process.env.HOST)
  : app.listen(port, process.env.HOST);
server.on('listening', () =>
  console.log(JSON.stringify({ listening: `${tls ? 'https' : 'http'}://${process.env.HOST ?? 'localhost'}:${server.address().port}/webhooks/docgen` })),
);
