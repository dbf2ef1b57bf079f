// Shared jest configuration: every workspace runs its TypeScript tests through SWC and
// resolves sibling workspace packages to their sources, so tests never see a stale build.
// Tests live beside the code in packages (src/) and in test/ in apps; a workspace laid out
// otherwise (e2e/, split by subject) passes its own `testMatch`.
const path = require('node:path');

module.exports = function jestConfig(dir, { testMatch = ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'] } = {}) {
  return {
    rootDir: dir,
    displayName: path.basename(dir),
    testEnvironment: 'node',
    testMatch,
    transform: {
      '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
    },
    moduleNameMapper: {
      '^@docgen/([a-z-]+)$': path.join(__dirname, 'packages/$1/src'),
    },
    testTimeout: 60_000,
    // A handle left open by a failed hook (a server whose close never ran) must not hold the
    // whole suite, and CI, until its time limit: results are already reported by then.
    forceExit: true,
    reporters: ['default', path.join(__dirname, 'scripts/jest-count-reporter.cjs')],
  };
};
