// End-to-end files are split by subject (generation/, bulk/, webhooks/, ...), not src/ + test/.
module.exports = require('../jest.preset.cjs')(__dirname, { testMatch: ['<rootDir>/**/*.test.ts'] });
