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

const { key, admin_email: adminEmail, admin_password: adminPassword } = JSON.parse(fs.readFileSync(path.join(root, 'data', 'demo-api-key.json'), 'utf8'));
const base = `http://127.0.0.1:${port}`;

/** Waits for the gateway, then makes sure the demo organisation has the sample template. */
async function seedSampleTemplate() {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const headers = { 'X-API-Key': key };
  const list = await (await fetch(`${base}/api/v1/templates?limit=100`, { headers })).json();
  const existing = list.items?.find((template) => template.name === 'Sample invoice');
  if (existing) return existing;
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(path.join(root, 'examples', 'sample-invoice.html'))]), 'sample-invoice.html');
  form.append('name', 'Sample invoice');
  const res = await fetch(`${base}/api/v1/templates`, { method: 'POST', headers, body: form });
  if (!res.ok) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  return res.json();
}

seedSampleTemplate().then(
  (template) =>
    process.stderr.write(`
[docgen] running: gateway ${base}  (API docs: ${base}/docs)
[docgen] web UI: ${base}/
[docgen] demo organisation API key: ${key}
[docgen] demo admin (web UI sign-in): ${adminEmail} / ${adminPassword}
[docgen] sample template: ${template.id} ("${template.name}", variables: ${template.variables.map((v) => v.name).join(', ')})
[docgen] try: curl -H "X-API-Key: ${key}" ${base}/api/v1/templates/${template.id}
[docgen] Ctrl-C stops everything.

`),
  (error) => process.stderr.write(`[docgen] could not seed the sample template: ${error.message}\n`),
);
