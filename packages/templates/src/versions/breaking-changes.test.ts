import type { TemplateVariable } from '@docgen/templating';
import { breakingChanges } from './breaking-changes';

const text = (name: string, required = true): TemplateVariable => ({ name, type: 'text', required });
const of = (name: string, type: TemplateVariable['type'], required = true): TemplateVariable => ({ name, type, required });
const list = (name: string, fieldTypes: Record<string, TemplateVariable['type']>): TemplateVariable => ({
  name,
  type: 'list',
  required: true,
  fields: Object.keys(fieldTypes),
  field_types: fieldTypes,
});

describe('breaking changes between two versions', () => {
  it('a new required variable', () => {
    expect(breakingChanges([text('a')], [text('a'), text('b')])).toEqual([{ path: 'input_json.b', message: 'New required variable "b"' }]);
  });

  it('a variable made required', () => {
    expect(breakingChanges([text('a', false)], [text('a')])).toEqual([{ path: 'input_json.a', message: '"a" is now required' }]);
  });

  it.each([
    ['text', 'date', 'text or a number', 'a date'],
    ['text', 'number', 'text or a number', 'a number'],
    ['text', 'image', 'text or a number', 'an image (URL or data: URI)'],
    ['text', 'boolean', 'text or a number', 'true or false'],
    ['boolean', 'list', 'true or false', 'a list'],
    ['date', 'number', 'a date', 'a number'],
  ] as const)('a changed type: %s → %s', (from, to, before, after) => {
    expect(breakingChanges([of('x', from)], [of('x', to)])).toEqual([{ path: 'input_json.x', message: `"x" changed type: it took ${before}, now ${after}` }]);
  });

  it('a removed list field, a retyped one and a new one, each named', () => {
    const before = [list('items', { description: 'text', price: 'text', photo: 'image' })];
    const after = [list('items', { description: 'text', price: 'number', qty: 'text' })];
    expect(breakingChanges(before, after)).toEqual([
      { path: 'input_json.items.qty', message: 'New required field "items.qty" in the list "items"' },
      { path: 'input_json.items.price', message: '"items.price" changed type: it took text or a number, now a number' },
      { path: 'input_json.items.photo', message: 'The list field "items.photo" was removed' },
    ]);
  });

  it('reaches lists inside lists', () => {
    const before: TemplateVariable[] = [
      { name: 'orders', type: 'list', required: true, fields: ['lines', 'lines.qty'], field_types: { lines: 'list', 'lines.qty': 'text' } },
    ];
    const after: TemplateVariable[] = [
      { name: 'orders', type: 'list', required: true, fields: ['lines', 'lines.qty'], field_types: { lines: 'list', 'lines.qty': 'date' } },
    ];
    expect(breakingChanges(before, after)).toEqual([
      { path: 'input_json.orders.lines.qty', message: '"orders.lines.qty" changed type: it took text or a number, now a date' },
    ]);
  });

  it("reaches an object's fields, in a list's items too", () => {
    const object = (name: string, fieldTypes: Record<string, TemplateVariable['type']>): TemplateVariable => ({
      name,
      type: 'object',
      required: true,
      fields: Object.keys(fieldTypes),
      field_types: fieldTypes,
    });
    expect(breakingChanges([object('client', { name: 'text', since: 'text' })], [object('client', { name: 'date', vat: 'text' })])).toEqual([
      { path: 'input_json.client.vat', message: 'New required field "client.vat" in "client"' },
      { path: 'input_json.client.name', message: '"client.name" changed type: it took text or a number, now a date' },
    ]);
    const orders = (customer: Record<string, TemplateVariable['type']>): TemplateVariable => ({
      name: 'orders',
      type: 'list',
      required: true,
      fields: ['customer', ...Object.keys(customer).map((field) => `customer.${field}`)],
      field_types: { customer: 'object', ...Object.fromEntries(Object.entries(customer).map(([field, type]) => [`customer.${field}`, type])) },
    });
    expect(breakingChanges([orders({ name: 'text' })], [orders({ name: 'text', email: 'text' })])).toEqual([
      { path: 'input_json.orders.customer.email', message: 'New required field "orders.customer.email" in "orders.customer"' },
    ]);
    // A field no longer printed is no break: the input that had it still renders.
    expect(breakingChanges([object('client', { name: 'text', since: 'text' })], [object('client', { name: 'text' })])).toEqual([]);
  });

  it.each([
    ['nothing changed', [text('a'), list('items', { p: 'number' })], [text('a'), list('items', { p: 'number' })]],
    ['a new optional variable', [text('a')], [text('a'), text('b', false)]],
    ['a variable removed', [text('a'), text('b')], [text('a')]],
    ['a variable made optional', [text('a')], [text('a', false)]],
    ['a type widened: date → text', [of('d', 'date')], [of('d', 'text')]],
    ['a type widened: number → text', [of('n', 'number')], [of('n', 'text')]],
    ['an image → text', [of('i', 'image')], [of('i', 'text')]],
    ['a list field widened: number → text', [list('items', { p: 'number' })], [list('items', { p: 'text' })]],
    ['a date format changed', [{ ...of('d', 'date'), format: 'DD/MM/YYYY' }], [{ ...of('d', 'date'), format: 'D MMMM YYYY' }]],
  ] as const)('not breaking: %s', (_, before, after) => {
    expect(breakingChanges([...before], [...after])).toEqual([]);
  });
});
