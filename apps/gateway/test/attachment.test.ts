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
});
