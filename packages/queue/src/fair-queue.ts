import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { renderJobId, type RenderJob } from './queues';
import { renderTakeListBase } from './render-takes';

/**
 * Fair share across organisations in front of the render list (render-takes.ts), where
 * workers take documents. A render job first joins its organisation's backlog (a sorted set,
 * oldest first); organisations with a backlog sit in a ring, and a "pump" hands jobs to
 * the render list one organisation at a time, round-robin, only while that list is shorter
 * than `depth`. So a bulk job of thousands of rows never stands in front of another
 * organisation's document: that document waits behind at most `depth` handed-over jobs
 * and the ones already rendering.
 *
 * Every step is one Lua script (atomic, whatever the number of gateways and workers). The
 * gateway pumps when it queues, every worker after each take and on a timer. The hand-over
 * is part of the same script, so a job is always in a backlog or on the render list.
 */

/** Jobs the render list holds when nothing else is said; 2 workers of 2 instances take 16 at once. */
export const DEFAULT_FAIR_QUEUE_DEPTH = 16;

/** How long a member handed to the render list is not handed again. */
const HANDED_MARK_TTL_MS = 10 * 60 * 1000;

export interface FairRenderJob extends RenderJob {
  organizationId: string;
}

// KEYS: ring, the render list's waiting entries. ARGV: backlog key prefix, depth, handed-mark
// prefix, handed-mark ttl ms, then group/member pairs.
// While no organisation has a backlog (the ring is empty), members go straight to the list as
// long as it has room: there is no one to take turns with, and it costs 2 commands instead
// of about 9. The rest join their group's backlog (a group joins the ring when its backlog goes
// from empty to not empty); then up to depth - LLEN(wait) members are popped, one per group
// in turn. What is handed over is pushed onto the render list; the count is returned. A member
// is handed over once (a mark with a ttl, as a BullMQ job id was): a call sent again after a
// lost reply, or a member queued again meanwhile, would otherwise render one generation twice at once.
const ENQUEUE_AND_PUMP = `
local ring, wait = KEYS[1], KEYS[2]
local prefix, depth, handedPrefix, handedTtl = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local backlogged = redis.call('LLEN', ring) > 0
if not backlogged and #ARGV < 5 then return 0 end
local room = depth - redis.call('LLEN', wait)
local handed = {}
local function hand(member)
  if redis.call('SET', handedPrefix .. member, '1', 'NX', 'PX', handedTtl) then
    handed[#handed + 1] = member
    room = room - 1
  end
end
local i = 5
if not backlogged then
  while i < #ARGV and room > 0 do
    hand(ARGV[i + 1])
    i = i + 2
  end
end
if i < #ARGV then
  backlogged = true
  local now = redis.call('TIME')
  local score = tonumber(now[1]) * 1000000 + tonumber(now[2])
  for j = i, #ARGV, 2 do
    local backlog = prefix .. ARGV[j]
    if redis.call('ZADD', backlog, 'NX', score, ARGV[j + 1]) == 1 and redis.call('ZCARD', backlog) == 1 then
      redis.call('RPUSH', ring, ARGV[j])
    end
    score = score + 1
  end
end
while backlogged and room > 0 do
  -- the group at the head takes its turn and goes to the tail, which it leaves once its backlog is empty
  local group = redis.call('LMOVE', ring, ring, 'LEFT', 'RIGHT')
  if not group then break end
  local backlog = prefix .. group
  local popped = redis.call('ZPOPMIN', backlog)
  if popped[1] then hand(popped[1]) end
  if redis.call('ZCARD', backlog) == 0 then redis.call('RPOP', ring) end
end
if #handed > 0 then redis.call('LPUSH', wait, unpack(handed)) end
return #handed
`;

// KEYS: ring. ARGV: backlog key prefix. Every backlogged organisation is in the ring once, so
// the backlogs' sizes summed over it is every job waiting there (read by the gauge, not kept
// as a counter: that cost every queued document two more commands).
const BACKLOG_SIZE = `
local size = 0
for _, group in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do size = size + redis.call('ZCARD', ARGV[1] .. group) end
return size
`;

type FairRedis = Redis & {
  docgenFairEnqueue(ring: string, wait: string, prefix: string, depth: number, handedPrefix: string, handedTtlMs: number, ...pairs: string[]): Promise<number>;
  docgenFairBacklogSize(ring: string, prefix: string): Promise<number>;
};

/** The keys of one render queue's fair-share scheduler, inside BullMQ's own key space for that queue. */
function fairKeys(queue: Queue<RenderJob>) {
  return {
    ring: queue.toKey('fair:ring'),
    wait: `${renderTakeListBase(queue)}:waiting`,
    handedPrefix: `${renderTakeListBase(queue)}:handed:`,
    backlogPrefix: queue.toKey('fair:backlog:'),
  };
}

async function scriptClient(queue: Queue<RenderJob>): Promise<FairRedis> {
  const client = (await queue.getBackend().client) as unknown as FairRedis;
  if (!client.docgenFairEnqueue) {
    client.defineCommand('docgenFairEnqueue', { numberOfKeys: 2, lua: ENQUEUE_AND_PUMP });
    client.defineCommand('docgenFairBacklogSize', { numberOfKeys: 1, lua: BACKLOG_SIZE });
  }
  return client;
}

/**
 * Adds jobs to their organisations' backlogs (a job already waiting there is not added
 * twice), then hands the render list as many as it has room for, round-robin across
 * organisations; how many it handed. With no jobs it only pumps. One script: throws when
 * Redis refuses, and then nothing was queued.
 */
export async function enqueueFairly(queue: Queue<RenderJob>, jobs: FairRenderJob[], depth = DEFAULT_FAIR_QUEUE_DEPTH): Promise<number> {
  const client = await scriptClient(queue);
  const keys = fairKeys(queue);
  const pairs = jobs.flatMap((job) => [job.organizationId, renderJobId(job)]);
  return Number(await client.docgenFairEnqueue(keys.ring, keys.wait, keys.backlogPrefix, depth, keys.handedPrefix, HANDED_MARK_TTL_MS, ...pairs));
}

/** Hands the render list what it has room for; every worker calls it after each take and on a timer. */
export const pumpFairQueue = (queue: Queue<RenderJob>, depth = DEFAULT_FAIR_QUEUE_DEPTH) => enqueueFairly(queue, [], depth);

/** For each job, whether it still waits in its organisation's backlog: one round trip for them all. */
export async function inFairBacklogs(queue: Queue<RenderJob>, jobs: FairRenderJob[]): Promise<boolean[]> {
  if (jobs.length === 0) return [];
  const client = (await queue.getBackend().client) as unknown as Redis;
  const prefix = fairKeys(queue).backlogPrefix;
  const pipeline = client.pipeline();
  for (const job of jobs) pipeline.zscore(prefix + job.organizationId, renderJobId(job));
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, score]) => {
    if (error) throw error;
    return score !== null;
  });
}

/** Jobs waiting in every organisation's backlog, for the autoscaling gauge. */
export async function fairBacklogSize(queue: Queue<RenderJob>): Promise<number> {
  const keys = fairKeys(queue);
  return Number(await (await scriptClient(queue)).docgenFairBacklogSize(keys.ring, keys.backlogPrefix));
}
