// Records each workspace's test counts in .test-results/<workspace>.json so that
// scripts/test.sh can print one "N passed, N failed" line for the whole repository.
// A test file that could not run at all (syntax error, failing beforeAll) counts as failed.
const fs = require('node:fs');
const path = require('node:path');

class CountReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
  }

  onRunComplete(contexts, results) {
    const workspace = [...contexts][0]?.config.displayName?.name ?? path.basename(this.globalConfig.rootDir);
    // The end-to-end files run a second time on S3 storage (scripts/test.sh): counted apart.
    const name = process.env.TEST_STORAGE_DRIVER === 's3' ? `${workspace}-s3` : workspace;
    const brokenFiles = results.testResults.filter((file) => file.testExecError && file.numFailingTests === 0).length;
    const counts = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + brokenFiles,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    const dir = path.join(__dirname, '..', '.test-results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(counts));
  }
}

module.exports = CountReporter;
