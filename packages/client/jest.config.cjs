// The package is ESM (imports end in .js); jest runs its TypeScript sources as CommonJS
// through SWC like every workspace, so ".js" specifiers are mapped back to the .ts files.
const base = require('../../jest.preset.cjs')(__dirname);
module.exports = { ...base, moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', ...base.moduleNameMapper } };
