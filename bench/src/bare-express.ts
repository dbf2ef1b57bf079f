import { randomUUID } from 'node:crypto';
import express from 'express';

/**
 * The baseline of the gateway benchmark: Express 5 parsing the same JSON body and
 * answering 202 with a document-shaped body, and nothing else. Run as its own process.
 */
const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/api/v1/documents', (req, res) => {
  const now = new Date().toISOString();
  res.status(202).json({ id: randomUUID(), status: 'queued', ...req.body, created_at: now, updated_at: now, completed_at: null, files: [] });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(JSON.stringify({ msg: 'listening', port: typeof address === 'object' && address ? address.port : 0 }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
