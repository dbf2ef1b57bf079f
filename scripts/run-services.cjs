// Runs the gateway, render worker and webhook dispatcher side by side for `npm start`,
// prints where to reach them, and stops all three on Ctrl-C (or when one of them dies).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const port = process.env.PORT || '8080';
const services = ['gateway', 'render-worker', 'webhook-dispatcher'];
const children = new Map();
let stopping = false;

function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill('SIGTERM');
  const done = () => children.size === 0 && process.exit(exitCode);
  for (const [name, child] of children) child.once('exit', () => (children.delete(name), done()));
  done();
}

for (const name of services) {
  const child = spawn(process.execPath, [path.join(root, 'apps', name, 'dist', 'main.js')], {
    cwd: root,
    env: { ...process.env, PORT: port },
    stdio: 'inherit',
  });
  children.set(name, child);
  child.once('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      process.stderr.write(`[docgen] ${name} exited (${signal ?? code}); stopping the others\n`);
      stopAll(1);
    }
  });
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

const { key } = JSON.parse(fs.readFileSync(path.join(root, 'data', 'demo-api-key.json'), 'utf8'));
process.stderr.write(`
[docgen] running: gateway http://127.0.0.1:${port}  (API docs: http://127.0.0.1:${port}/docs)
[docgen] demo organisation API key: ${key}
[docgen] try: curl -H "X-API-Key: ${key}" http://127.0.0.1:${port}/api/v1/me
[docgen] Ctrl-C stops everything.

`);
