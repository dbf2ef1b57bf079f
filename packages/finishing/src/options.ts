import type { PdfSignature } from './sign';

/** What the finishing step does to a rendered PDF; every part is optional. */
export interface FinishingOptions {
  watermark?: { text: string; opacity: number };
  metadata?: { title?: string; author?: string; subject?: string; keywords?: string[] };
  encryption?: PdfEncryption;
  /** Signed last, with nothing changing the bytes after it; never together with encryption. */
  signature?: PdfSignature;
}

export interface PdfEncryption {
  /** Empty: the document opens without a password, but its permissions still apply. */
  userPassword: string;
  ownerPassword: string;
  permissions: { print: boolean; copy: boolean; modify: boolean };
}

/** The finishing step could not apply what the request asked for; the message says what to change. */
export class FinishingInputError extends Error {}
