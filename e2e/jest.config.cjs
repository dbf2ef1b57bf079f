// End-to-end files are split by subject (generation/, bulk/, webhooks/, ...), not src/ + test/.
// @docgen/client resolves to its ESM sources, whose "./x.js" imports are mapped back to the
// .ts files (as in packages/client/jest.config.cjs) so they run as CommonJS like the rest.
const base = require('../jest.preset.cjs')(__dirname, { testMatch: ['<rootDir>/**/*.test.ts'] });
module.exports = { ...base, moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', ...base.moduleNameMapper } };
