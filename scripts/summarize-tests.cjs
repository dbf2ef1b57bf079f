// Adds up .test-results/*.json (written by jest-count-reporter.cjs) into the single
// closing line CI reads: "N passed, N failed". A workspace with a test script that left no
// results (jest crashed before reporting) counts as one failure. Exits 1 on any failure.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const resultsDir = path.join(root, '.test-results');
const totals = { passed: 0, failed: 0, skipped: 0 };
const workspaces = [
  ...['apps', 'packages'].flatMap((dir) => fs.readdirSync(path.join(root, dir)).map((name) => path.join(root, dir, name))),
  path.join(root, 'e2e'),
  path.join(root, 'infra'),
];

for (const workspace of workspaces) {
  const manifest = path.join(workspace, 'package.json');
  if (!fs.existsSync(manifest) || !JSON.parse(fs.readFileSync(manifest, 'utf8')).scripts?.test) continue;
  const results = path.join(resultsDir, `${path.basename(workspace)}.json`);
  if (!fs.existsSync(results)) {
    process.stderr.write(`no test results from ${path.relative(root, workspace)}: its test run crashed\n`);
    totals.failed += 1;
  }
}
for (const file of fs.readdirSync(resultsDir).filter((f) => f.endsWith('.json'))) {
  const counts = JSON.parse(fs.readFileSync(path.join(resultsDir, file), 'utf8'));
  for (const key of Object.keys(totals)) totals[key] += counts[key] ?? 0;
}

const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed${skipped}\n`);
process.exit(totals.failed > 0 || totals.passed === 0 ? 1 : 0);
