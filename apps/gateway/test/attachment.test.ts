import { attachment } from '../src/routes/templates';

describe('Content-Disposition', () => {
  it('is exactly attachment; filename="…" for a plain ASCII name', () => {
    expect(attachment('invoice-1f0c.pdf')).toBe('attachment; filename="invoice-1f0c.pdf"');
  });

  it('keeps an ASCII fallback and adds the UTF-8 form when the name needs it', () => {
    expect(attachment('Счёт "май".pdf')).toBe(
      `attachment; filename="____ _____.pdf"; filename*=UTF-8''%D0%A1%D1%87%D1%91%D1%82%20%22%D0%BC%D0%B0%D0%B9%22.pdf`,
    );
  });

  it("percent-encodes ' ( ) * !, which encodeURIComponent leaves but RFC 5987 does not allow", () => {
    expect(attachment("Rapport d'été (v2)*!.pdf")).toBe(
      `attachment; filename="Rapport d'_t_ (v2)*!.pdf"; filename*=UTF-8''Rapport%20d%27%C3%A9t%C3%A9%20%28v2%29%2A%21.pdf`,
    );
  });
});
