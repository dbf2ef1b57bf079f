import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type Database = PrismaClient;

export function createPrismaClient(databaseUrl: string, options: { poolSize?: number } = {}): Database {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    // Fail fast when PostgreSQL is down instead of queueing requests behind a dead socket.
    connectionTimeoutMillis: 3_000,
  });
  return new PrismaClient({ adapter });
}
