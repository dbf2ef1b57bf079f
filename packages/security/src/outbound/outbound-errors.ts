/** The destination resolves to an address the service must not reach. */
export class OutboundBlockedError extends Error {
  override name = 'OutboundBlockedError';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address} (${range}), a private or reserved address`);
  }
}

/** The request could not be completed: DNS, connection, timeout, size, redirects. */
export class OutboundRequestError extends Error {
  override name = 'OutboundRequestError';
}
