/**
 * Names a bulk job's ZIP entries from each row's values: `{invoice_number}-{client_name}`
 * gives `INV-42-ACME Corp.pdf`. The pattern's tags name top-level tokens of the template;
 * what a row fills in is sanitised for every file system, and a name already taken in the
 * ZIP gets `-2`, `-3`, … (compared without letter case, as Windows and macOS do).
 */

const TAG = /\{\s*([^{}]*?)\s*\}/g;
const MAX_STEM = 100;
// File systems count a name's bytes (255 in ext4, APFS, NTFS's UTF-16 aside): 100 characters of
// CJK or emoji can pass that, with room left for "-12345.docx".
const MAX_STEM_BYTES = 200;
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** The token names a pattern reads, in order. */
export function fileNameTags(pattern: string): string[] {
  return [...pattern.matchAll(TAG)].map((match) => match[1]!);
}

/** What is wrong with a pattern, given the names of the tokens it may read; undefined when it is fine. */
export function fileNameProblem(pattern: string, tokens: readonly string[]): string | undefined {
  if (pattern.length > 200) return 'must be at most 200 characters';
  if (/[{}]/.test(pattern.replace(TAG, ''))) return 'has a "{" or "}" that opens or closes no tag';
  const tags = fileNameTags(pattern);
  if (tags.length === 0) return 'must name at least one token, like {invoice_number}';
  const unknown = tags.filter((tag) => !tokens.includes(tag));
  if (unknown.length > 0) return `names ${unknown.map((t) => `{${t}}`).join(', ')}, not a token of this template; the tokens are ${tokens.join(', ')}`;
  return undefined;
}

// Device names Windows will not open as files, whatever follows them ("con.pdf", "nul .txt" too).
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\s*\.|$)/i;

/** Text safe as a file name everywhere: no path separators, control or reserved characters, no leading dots. */
function sanitise(text: string): string {
  const cleaned = text
    .normalize('NFC')
    // Control characters and what Windows reserves.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/g, '_')
    .replace(/\s+/g, ' ');
  return shortened(trimmedOfDotsAndSpaces(cleaned)).trim().replace(WINDOWS_DEVICE, '$1_$2');
}

/** Without leading and trailing dots and spaces; a loop, since /[\s.]+$/ takes time quadratic in a long run of them that is not at the end (a row's value may be a megabyte). */
function trimmedOfDotsAndSpaces(text: string): string {
  const trimmable = (char: string | undefined) => char === '.' || char === ' ';
  let start = 0;
  let end = text.length;
  while (start < end && trimmable(text[start])) start += 1;
  while (end > start && trimmable(text[end - 1])) end -= 1;
  return text.slice(start, end);
}

/** At most MAX_STEM characters and MAX_STEM_BYTES bytes of UTF-8, cut between whole characters as a person sees them (an emoji, a letter with its accents). */
function shortened(text: string): string {
  let stem = '';
  let characters = 0;
  let bytes = 0;
  for (const { segment } of graphemes.segment(text)) {
    characters += [...segment].length;
    bytes += Buffer.byteLength(segment);
    if (characters > MAX_STEM || bytes > MAX_STEM_BYTES) break;
    stem += segment;
  }
  return stem;
}

const valueText = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '');

/**
 * Gives each row's file its name: the pattern filled with the row's values and sanitised,
 * or `fallback` (the row's `row-0002` name) when that leaves nothing; unique in the ZIP.
 */
export function fileNamer(pattern: string) {
  const taken = new Set<string>();
  return (input: Record<string, unknown>, fallback: string, extension: string): string => {
    const stem = sanitise(pattern.replace(TAG, (_, name: string) => valueText(input[name]))) || fallback;
    let name = `${stem}.${extension}`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem}-${n}.${extension}`;
    taken.add(name.toLowerCase());
    return name;
  };
}
