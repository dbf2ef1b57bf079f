import type { Redis } from 'ioredis';
import { countInWindow } from '@docgen/queue';

/** Blocked addresses remembered per replica; more than this and the oldest are forgotten. */
const MAX_REMEMBERED = 10_000;

/**
 * What failed: a presented API key, or a sign-in with an email and password. Each is counted
 * apart, so a person mistyping a password (or someone guessing them) behind a shared NAT
 * address never locks out that address's programs, nor the other way round.
 */
export type CredentialKind = 'api-key' | 'sign-in';

/**
 * Throttles repeated failed authentications per client address and credential kind, before
 * any database query. Failures are counted in Redis (shared by every gateway replica); an
 * address over the limit is then remembered in this replica's memory until its window
 * ends, so while it is blocked its failures are no longer counted in Redis, its malformed
 * keys cost no query, and a well-formed key costs its one indexed lookup (a valid key from
 * that address still gets through: docs/architecture.md). A successful request never
 * touches Redis here.
 */
export class AuthFailureThrottle {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Seconds the address must wait before trying this kind of credential again, or 0 when it may try. */
  retryAfterSeconds(kind: CredentialKind, address: string): number {
    const subject = `${kind}:${address}`;
    const until = this.blockedUntil.get(subject);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left <= 0) {
      this.blockedUntil.delete(subject);
      return 0;
    }
    return Math.ceil(left / 1000);
  }

  /** Records a failed authentication; Redis being down only means this one is not counted. */
  async recordFailure(kind: CredentialKind, address: string): Promise<void> {
    const subject = `${kind}:${address}`;
    const { count, msLeft } = await countInWindow(this.redis, `${this.keyPrefix}authfail:${subject}`, this.windowMs);
    if (count >= this.limit) this.block(subject, Date.now() + msLeft);
  }

  private block(subject: string, until: number): void {
    if (this.blockedUntil.size >= MAX_REMEMBERED) {
      const now = Date.now();
      for (const [known, end] of this.blockedUntil) if (end <= now) this.blockedUntil.delete(known);
      if (this.blockedUntil.size >= MAX_REMEMBERED) this.blockedUntil.delete(this.blockedUntil.keys().next().value!);
    }
    this.blockedUntil.set(subject, until);
  }
}
