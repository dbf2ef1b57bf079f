import { execFileSync } from 'node:child_process';
import { coverageFromCharsets, missingGlyphWarnings } from './glyph-coverage';

// This machine's fonts, as the render worker reads them (scripts/bootstrap.sh installs Noto core and CJK).
const installed = coverageFromCharsets(execFileSync('fc-list', ['--format', '%{charset}\n']).toString().split('\n'));

describe('missing glyphs in an HTML template', () => {
  it('says nothing for the scripts the installed fonts cover', () => {
    const html = '<p>Ελληνικά Кириллица العربية עברית हिन्दी 日本語 한국어 ไทย — €, “quotes”</p>';
    expect(missingGlyphWarnings(html, installed)).toEqual([]);
  });

  it('names a script no installed font has, with the characters, once', () => {
    const html = '<p title="x">Dives Akuru: \u{11900}\u{11901}\u{11900}</p><style>p::before { content: "\u{11902}" }</style>';
    const warnings = missingGlyphWarnings(html, installed);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^The template uses Dives Akuru characters \(\u{11900} \u{11901}: U\+11900, U\+11901\) that no font installed on the render workers can print/u,
    );
  });

  it('reads fontconfig ranges', () => {
    const covers = coverageFromCharsets(['20-7e a0-17f', '392-3a1 4e00']);
    expect([0x41, 0x17f, 0x180, 0x395, 0x4e00, 0x4e01].map(covers)).toEqual([true, true, false, true, true, false]);
  });
});
