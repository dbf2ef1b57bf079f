import { cheerioLibrary } from './html-libraries';

/** Whether some installed font has a glyph for a code point (the render worker's fontconfig). */
export type CoversCodePoint = (codePoint: number) => boolean;

// Unicode scripts by the name a reader knows; the first that matches names a character.
const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Nko',
  'Samaritan',
  'Mandaic',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Cherokee',
  'Canadian_Aboriginal',
  'Ogham',
  'Runic',
  'Tagalog',
  'Khmer',
  'Mongolian',
  'Limbu',
  'Tai_Le',
  'Buginese',
  'Balinese',
  'Sundanese',
  'Batak',
  'Lepcha',
  'Ol_Chiki',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
  'Yi',
  'Lisu',
  'Vai',
  'Bamum',
  'Javanese',
  'Cham',
  'Tai_Viet',
  'Meetei_Mayek',
  'Tifinagh',
  'Glagolitic',
  'Coptic',
  'Gothic',
  'Old_Italic',
  'Linear_B',
  'Cuneiform',
  'Egyptian_Hieroglyphs',
  'Anatolian_Hieroglyphs',
  'Adlam',
  'Osage',
  'Tangut',
  'Nushu',
  'Dives_Akuru',
  'Khitan_Small_Script',
  'Yezidi',
  'Chorasmian',
  'Vithkuqi',
  'Toto',
  'Cypro_Minoan',
  'Old_Uyghur',
  'Tangsa',
  'Kawi',
  'Nag_Mundari',
].map((name) => [name.replace(/_/g, ' '), new RegExp(`^\\p{Script=${name}}$`, 'u')] as const);

// Spaces, controls, format characters and private use print as nothing or are ours to set.
const INVISIBLE = /^[\p{Z}\p{C}]$/u;

function scriptOf(character: string): string {
  return SCRIPTS.find(([, pattern]) => pattern.test(character))?.[0] ?? 'symbol';
}

/**
 * What an HTML template's text holds that no installed font can print (it would come out as
 * empty boxes), one warning per script with a few of the characters: a clear word at upload
 * instead of a surprise in the PDF.
 */
export function missingGlyphWarnings(html: string, covers: CoversCodePoint): string[] {
  const $ = cheerioLibrary().load(html, { xml: { xmlMode: false, decodeEntities: true } });
  $('style, script, title').remove();
  const byScript = new Map<string, Set<string>>();
  for (const character of new Set($.root().text())) {
    const codePoint = character.codePointAt(0)!;
    if (codePoint < 0x80 || INVISIBLE.test(character) || covers(codePoint)) continue;
    const script = scriptOf(character);
    byScript.set(script, (byScript.get(script) ?? new Set()).add(character));
  }
  return [...byScript].map(([script, characters]) => {
    const sample = [...characters].slice(0, 5);
    const codes = sample.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(', ');
    const what = script === 'symbol' ? 'symbols' : `${script} characters`;
    return `The template uses ${what} (${sample.join(' ')}: ${codes}${characters.size > 5 ? ', …' : ''}) that no font installed on the render workers can print; they would print as empty boxes. Install a font for them on the render workers, or remove them`;
  });
}

/** Code point ranges as fontconfig lists them ("20-7e a0-17f 192 …"), merged, for a binary search. */
export function coverageFromCharsets(charsets: string[]): CoversCodePoint {
  const ranges = charsets
    .flatMap((line) => line.split(/\s+/).filter(Boolean))
    .map((range) => {
      const [from, to] = range.split('-');
      return [Number.parseInt(from!, 16), Number.parseInt(to ?? from!, 16)] as [number, number];
    })
    .filter(([from, to]) => Number.isFinite(from) && Number.isFinite(to))
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of ranges) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return (codePoint) => {
    let low = 0;
    let high = merged.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const [from, to] = merged[middle]!;
      if (codePoint < from) high = middle - 1;
      else if (codePoint > to) low = middle + 1;
      else return true;
    }
    return false;
  };
}
