import { replaceText, type ScannedPart } from './tag-scanner';

export interface CorrectedToken {
  from: string;
  to: string;
}

/** "client name" → "client_name": docxtemplater's default parser cannot read spaces. */
export function correctedName(name: string): string {
  return name.trim().replace(/\s+/g, '_');
}

/**
 * Rewrites every tag whose name contains whitespace to use underscores, in place.
 * Returns the corrections made (each distinct name once). Unchanged parts stay untouched.
 */
export function correctTokenNames(part: ScannedPart): CorrectedToken[] {
  const needing = part.tags.filter((tag) => /\s/.test(tag.name));
  for (const tag of [...needing].reverse()) {
    replaceText(part, tag.start + 1, tag.end - 1, `${tag.prefix}${correctedName(tag.name)}`);
  }
  const corrections = new Map(needing.map((tag) => [tag.name, correctedName(tag.name)]));
  return [...corrections].map(([from, to]) => ({ from, to }));
}
