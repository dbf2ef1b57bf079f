import { PNG } from 'pngjs';
import { checkInput, type TemplateVariable } from '@docgen/templating';
import { comparePages } from '../src/rendering/compare-pages';
import { sampleInput } from '../src/rendering/sample-input';

const page = (width: number, height: number, dark?: { x: number; y: number; size: number }) => {
  const png = new PNG({ width, height });
  png.data.fill(255);
  if (dark) {
    for (let y = dark.y; y < dark.y + dark.size; y++) {
      for (let x = dark.x; x < dark.x + dark.size; x++) png.data.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3); // opaque black
    }
  }
  return PNG.sync.write(png);
};

describe('the drift check’s sample input', () => {
  it('fills every kind of variable, nested lists included, with values the input check accepts, the same on every call', () => {
    const variables: TemplateVariable[] = [
      { name: 'customer', type: 'text', required: true },
      { name: 'due', type: 'date', required: true, format: 'D MMMM YYYY' },
      { name: 'total', type: 'number', required: false },
      { name: 'paid', type: 'boolean', required: true },
      { name: 'logo', type: 'image', required: true },
      {
        name: 'orders',
        type: 'list',
        required: true,
        fields: ['id', 'lines', 'lines.sku', 'lines.price', 'lines.photo'],
        field_types: { id: 'text', lines: 'list', 'lines.sku': 'text', 'lines.price': 'number', 'lines.photo': 'image' },
      },
      {
        name: 'client',
        type: 'object',
        required: true,
        fields: ['name', 'address', 'address.city', 'since'],
        field_types: { name: 'text', address: 'object', 'address.city': 'text', since: 'date' },
      },
    ];
    const input = sampleInput(variables);
    expect(() => checkInput(variables, input)).not.toThrow();
    expect(input).toMatchObject({
      customer: 'Sample customer',
      due: '2026-01-31',
      total: 1234.5,
      paid: true,
      logo: expect.stringMatching(/^data:image\/png;base64,/),
    });
    expect(input.orders).toEqual([
      { id: 'Sample id 1', lines: [expect.objectContaining({ sku: 'Sample sku 1', price: 1234.5 }), expect.objectContaining({ sku: 'Sample sku 2' })] },
      expect.objectContaining({ id: 'Sample id 2' }),
    ]);
    expect(input.client).toEqual({ name: 'Sample client name', address: { city: 'Sample client address city' }, since: '2026-01-31' });
    expect(sampleInput(variables)).toEqual(input);
  });
});

describe('comparing pages', () => {
  it('counts the share of changed pixels of the worst page and paints them red in the diff', () => {
    const before = [page(100, 100), page(100, 100)];
    const after = [page(100, 100), page(100, 100, { x: 10, y: 20, size: 30 })];
    const { pageRatios, changedRatio, diff } = comparePages(before, after);
    expect(pageRatios).toEqual([0, 0.09]);
    expect(changedRatio).toBe(0.09);
    const image = PNG.sync.read(diff);
    expect([image.width, image.height]).toEqual([100, 208]); // two pages, 8 px apart
    const pixel = (x: number, y: number) => [...image.data.subarray((y * 100 + x) * 4, (y * 100 + x) * 4 + 3)];
    expect(pixel(25, 108 + 35)).toEqual([255, 0, 0]);
    expect(pixel(25, 35)).not.toEqual([255, 0, 0]);
  });

  it('counts a page added, removed or resized as fully changed', () => {
    expect(comparePages([page(100, 100)], [page(100, 100), page(100, 100)]).pageRatios).toEqual([0, 1]);
    expect(comparePages([page(100, 100), page(100, 100)], [page(100, 100)]).changedRatio).toBe(1);
    expect(comparePages([page(100, 100)], [page(100, 120)]).pageRatios).toEqual([1]);
    expect(comparePages([page(100, 100)], [page(100, 100)]).changedRatio).toBe(0);
  });
});
