// Runs `prisma generate`. The CLI insists on a schema-engine binary, which it downloads
// from a host some machines cannot reach; generating the client does not use it, so any
// existing file satisfies the check (DESIGN.md, "Prisma 7").
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
execFileSync(process.execPath, [require.resolve('prisma/build/index.js'), 'generate', '--schema', path.join(__dirname, '../../../prisma/schema.prisma')], {
  stdio: 'inherit',
  env,
});
