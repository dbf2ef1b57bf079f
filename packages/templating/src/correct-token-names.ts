import { replaceText, type ScannedPart } from './tag-scanner';

export interface CorrectedToken {
  from: string;
  to: string;
}

/** "client name" → "client_name": docxtemplater's default parser cannot read spaces. */
export function correctedName(name: string): string {
  return name.trim().replace(/\s+/g, '_');
}

/** Words separated by spaces and nothing else: a name written with spaces, not an expression (`a * b`). */
const SPACED_NAME = /^[\p{L}\p{N}_]+(\s+[\p{L}\p{N}_]+)+$/u;

/**
 * Rewrites every tag whose name is words separated by whitespace to use underscores, in place.
 * Returns the corrections made (each distinct name once). Unchanged parts stay untouched.
 */
export function correctTokenNames(part: ScannedPart): CorrectedToken[] {
  const needing = part.tags.filter((tag) => SPACED_NAME.test(tag.name));
  for (const tag of [...needing].reverse()) {
    replaceText(part, tag.start + 1, tag.end - 1, `${tag.prefix}${correctedName(tag.name)}`);
  }
  const corrections = new Map(needing.map((tag) => [tag.name, correctedName(tag.name)]));
  return [...corrections].map(([from, to]) => ({ from, to }));
}
