// Runs the gateway, render worker and webhook dispatcher side by side for `npm start`. It
// prints where to reach them only once every one answers /readyz; it stops all three on
// Ctrl-C, on SIGTERM, when one of them dies (exiting non-zero) and when its own parent
// ends (npm does not pass a SIGTERM on). The services end with it however it ends: each
// holds an IPC channel to this process and shuts down when that channel closes.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const root = path.join(__dirname, '..');
const keyFile = process.env.DOCGEN_DEMO_KEY_FILE || path.join(root, 'data', 'demo-api-key.json');
const readyTimeoutMs = Number(process.env.DOCGEN_START_TIMEOUT_MS || 120_000);
const stopTimeoutMs = Number(process.env.SHUTDOWN_TIMEOUT_MS || 25_000) + 5_000;
const services = ['gateway', 'render-worker', 'webhook-dispatcher'];

const env = { ...process.env, PORT: process.env.PORT || '8080' };
// METRICS_PORT is for one worker run alone: here both workers share this environment.
if (env.METRICS_PORT) {
  process.stderr.write(
    '[docgen] METRICS_PORT is ignored by npm start (both workers would bind it); set RENDER_WORKER_METRICS_PORT and WEBHOOK_DISPATCHER_METRICS_PORT\n',
  );
  delete env.METRICS_PORT;
}
env.RENDER_WORKER_METRICS_PORT ||= '9101';
env.WEBHOOK_DISPATCHER_METRICS_PORT ||= '9102';
const probeHost = !env.HOST || env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;

// The port each service binds is read from its 'listening' log line (so port 0 works);
// with logs quieter than info there is none, and the configured port is probed instead.
const quietLogs = ['fatal', 'error', 'warn', 'silent'].includes(env.LOG_LEVEL);
const configuredPorts = { gateway: env.PORT, 'render-worker': env.RENDER_WORKER_METRICS_PORT, 'webhook-dispatcher': env.WEBHOOK_DISPATCHER_METRICS_PORT };

const say = (line) => process.stderr.write(`[docgen] ${line}\n`);
// The terminal or file behind stdout may go away before the services' last lines.
process.stdout.on('error', () => {});
const children = new Map();
/** The port each service logged as listening on, once it has. */
const listening = new Map();
let stopping = false;

function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  const exit = () => children.size === 0 && process.exit(exitCode);
  for (const [name, child] of children) {
    child.once('exit', () => (children.delete(name), exit()));
    child.kill('SIGTERM');
  }
  // A service stuck past its own shutdown deadline is not waited for forever.
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, stopTimeoutMs).unref();
  exit();
}

for (const name of services) {
  const child = spawn(process.execPath, [path.join(root, 'apps', name, 'dist', 'main.js')], {
    cwd: root,
    env,
    stdio: ['inherit', 'pipe', 'inherit', 'ipc'],
  });
  children.set(name, child);
  child.stdout.pipe(process.stdout);
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    if (listening.has(name) || !line.includes('"listening"')) return;
    try {
      const entry = JSON.parse(line);
      if (entry.msg === 'listening' && typeof entry.port === 'number') listening.set(name, entry.port);
    } catch {
      // not a log line
    }
  });
  child.once('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      say(`${name} exited (${signal ?? code}); stopping the others`);
      stopAll(1);
    }
  });
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
process.on('SIGHUP', () => stopAll(0));
// No prctl(PR_SET_PDEATHSIG) in Node: a parent that ends leaves us to init, and ppid changes.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid === parentPid) return;
  say('parent process gone; stopping');
  stopAll(0);
}, 500).unref();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once every service has logged its port and answers /readyz there. */
async function waitUntilReady() {
  const deadline = Date.now() + readyTimeoutMs;
  const pending = new Set(services);
  while (pending.size > 0) {
    if (stopping) throw new Error('stopped');
    if (Date.now() > deadline) throw new Error(`not ready within ${readyTimeoutMs} ms: ${[...pending].join(', ')}`);
    for (const name of pending) {
      const port = listening.get(name) ?? (quietLogs ? Number(configuredPorts[name]) : undefined);
      if (port === undefined) continue;
      try {
        if ((await fetch(`http://${probeHost}:${port}/readyz`)).ok) pending.delete(name);
      } catch {
        // not answering yet
      }
    }
    if (pending.size > 0) await sleep(200);
  }
}

/** Makes sure the demo organisation has the sample template. */
async function seedSampleTemplate(base, key) {
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

async function announce() {
  try {
    await waitUntilReady();
  } catch (error) {
    if (!stopping) {
      say(`${error.message}; stopping everything`);
      stopAll(1);
    }
    return;
  }
  const { key, admin_email: adminEmail, admin_password: adminPassword } = JSON.parse(fs.readFileSync(keyFile, 'utf8'));
  const base = `http://${probeHost}:${listening.get('gateway') ?? configuredPorts.gateway}`;
  let sample = '';
  try {
    const template = await seedSampleTemplate(base, key);
    sample = `[docgen] sample template: ${template.id} ("${template.name}", variables: ${template.variables.map((v) => v.name).join(', ')})
[docgen] try: curl -H "X-API-Key: ${key}" ${base}/api/v1/templates/${template.id}
`;
  } catch (error) {
    say(`could not seed the sample template: ${error.message}`);
  }
  if (stopping) return;
  process.stderr.write(`
[docgen] running: gateway ${base}  (API docs: ${base}/docs)
[docgen] web UI: ${base}/
[docgen] demo organisation API key: ${key}
[docgen] demo admin (web UI sign-in): ${adminEmail} / ${adminPassword}
${sample}[docgen] Ctrl-C stops everything.

`);
}

void announce();
