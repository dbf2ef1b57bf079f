import { compileExpression, evaluate, EvaluationBudget, ExpressionError, inferVariables, valueToText, type Expression } from './index';

function compiled(text: string, image = false): Expression {
  const result = compileExpression(text, { image });
  if (!result.ok) throw new Error(`${text}: ${result.errors.map((e) => e.message).join('; ')}`);
  return result.ast;
}

function run(text: string, scope: Record<string, unknown> = {}, locale = 'en-US', timeoutMs = 1000): string {
  const value = evaluate(compiled(text), [scope], { locale, budget: new EvaluationBudget(timeoutMs) });
  return valueToText(value, locale, text);
}

const problems = (text: string, image = false) => {
  const result = compileExpression(text, { image });
  return result.ok ? [] : result.errors.map((e) => e.message);
};

describe('the language', () => {
  it.each([
    ['price * quantity', { price: 19.99, quantity: 3 }, '59.97'],
    ['(subtotal - discount) * 1.2', { subtotal: 100, discount: '10.50' }, '107.4'],
    ['first_name + " " + last_name', { first_name: 'Ada', last_name: 'Lovelace' }, 'Ada Lovelace'],
    ['client.address.city', { client: { address: { city: 'Paris' } } }, 'Paris'],
    ['items.length', { items: [{}, {}, {}] }, '3'],
    ['items[1].name', { items: [{ name: 'a' }, { name: 'b' }] }, 'b'],
    ['total > 1000 ? "Large" : "Small"', { total: 1000.01 }, 'Large'],
    ['status == "paid" && !overdue', { status: 'paid', overdue: false }, 'true'],
    ['a >= 2 || b', { a: 1, b: 0 }, '0'],
    ['name | upper', { name: 'ada' }, 'ADA'],
    ['"  x  " | trim | upper', {}, 'X'],
    ['NAME | lower', { NAME: 'ÄB' }, 'äb'],
    ['note | default:"n/a"', { note: '' }, 'n/a'],
    ['missing | default:"n/a"', {}, 'n/a'],
    ['client.note | default:"n/a"', { client: {} }, 'n/a'],
    ['client.address.city | default:"n/a"', { client: { address: null } }, 'n/a'],
    ['0.1 + 0.2 | number:2', {}, '0.30'],
    ['amount | number', { amount: 1234.5 }, '1,234.5'],
    ['amount | currency:"EUR"', { amount: 1234.5 }, '€1,234.50'],
    ['rate | percent', { rate: 0.175 }, '18%'],
    ['rate | percent:1', { rate: 0.175 }, '17.5%'],
    ['due | date:"D MMMM YYYY"', { due: '2026-12-24' }, '24 December 2026'],
    [
      'items | sum:"price * quantity" | currency:"EUR"',
      {
        items: [
          { price: '19.99', quantity: 3 },
          { price: 0.1, quantity: 1 },
        ],
      },
      '€60.07',
    ],
    ['items | count', { items: [1, 2, 3] }, '3'],
    ['(items | count) > 2 ? "many" : "few"', { items: [1, 2, 3] }, 'many'],
    ['x | number:2 | default:"?"', { x: null }, '?'],
    ['items | avg:"x"', { items: [{ x: 1 }, { x: 2 }] }, '1.5'],
    ['items | min:"x"', { items: [{ x: 5 }, { x: -2 }] }, '-2'],
    ['items | max:"x * rate"', { items: [{ x: 5 }, { x: 2 }], rate: 2 }, '10'],
    ['-x + +y', { x: 1, y: 3 }, '2'],
    ['10 % 4', {}, '2'],
    ['1 / 3 | number:4', {}, '0.3333'],
    ['"a" == "a" && 1 == 1.0 && "1" != 1.5', {}, 'true'],
    ['"Invoice " + n', { n: 42 }, 'Invoice 42'],
    ['name === "x"', { name: 'x' }, 'true'],
    ['"\\u0041\\n"', {}, 'A\n'],
    ['note | default:\u201cn/a\u201d', {}, 'n/a'],
  ])('%s', (text, scope, expected) => {
    expect(run(text, scope)).toBe(expected);
  });

  it('prints numbers in the template locale', () => {
    expect(run('amount | currency:"EUR"', { amount: 1234.5 }, 'de-DE')).toBe('1.234,50\u00a0€');
    expect(run('a * b', { a: 1000, b: 1.5 }, 'de-DE')).toBe('1.500');
    expect(run('due | date:"D MMMM YYYY"', { due: '2026-12-24' }, 'de-DE')).toBe('24. Dezember 2026');
  });

  it('adds 10,000 rows of money exactly to the cent', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ price: Number(((10 + (i % 7)) / 100).toFixed(2)), quantity: 3 }));
    // By hand in integer cents: every price is 10..16 cents.
    const cents = items.reduce((total, _, i) => total + (10 + (i % 7)) * 3, 0);
    const expected = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    expect(run('items | sum:"price * quantity" | number:2', { items }).replace(/,/g, '')).toBe(expected);
    expect(run('items | sum:"price * quantity"', { items }).replace(/,/g, '')).toBe(expected.replace(/0+$/, '').replace(/\.$/, ''));
  });

  it('reads names from the innermost scope first', () => {
    const ast = compiled('price * rate');
    const value = evaluate(ast, [{ price: 2 }, { rate: 3, price: 100 }], { locale: 'en-US', budget: new EvaluationBudget(1000) });
    expect(valueToText(value, 'en-US', 'x')).toBe('6');
  });
});

describe('the examples of docs/templates.md print what the page says', () => {
  const data = {
    first_name: 'Ada',
    last_name: 'Lovelace',
    price: '19.99',
    quantity: 3,
    total: 1250.5,
    status: 'paid',
    overdue: false,
    rate: 0.175,
    due: '2026-12-24',
    client: { address: { city: 'Lyon' } },
    items: [
      { price: '19.99', quantity: 3 },
      { price: 0.1, quantity: 1 },
    ],
  };
  it.each([
    ['price * quantity', '59.97'],
    ['(price - 4.99) * 2', '30'],
    ['first_name + " " + last_name', 'Ada Lovelace'],
    ['client.address.city', 'Lyon'],
    ['items.length', '2'],
    ['items[0].price', '19.99'],
    ['total > 1000', 'true'],
    ['status == "paid" && !overdue', 'true'],
    ['total > 1000 ? "Large" : "Small"', 'Large'],
    ['last_name | upper', 'LOVELACE'],
    ['first_name | lower', 'ada'],
    ['"  x " | trim', 'x'],
    ['note | default:"n/a"', 'n/a'],
    ['total | number:2', '1,250.50'],
    ['total | currency:"EUR"', '€1,250.50'],
    ['rate | percent', '18%'],
    ['rate | percent:1', '17.5%'],
    ['due | date:"D MMMM YYYY"', '24 December 2026'],
    ['items | sum:"price * quantity"', '60.07'],
    ['items | count', '2'],
    ['items | avg:"price"', '10.045'],
    ['items | min:"price"', '0.1'],
    ['items | max:"price"', '19.99'],
    ['items | sum:"price * quantity" | currency:"EUR"', '€60.07'],
  ])('%s', (text, expected) => {
    expect(run(text, data)).toBe(expected);
  });
});

describe('runtime errors name the value, never print undefined or NaN', () => {
  it.each([
    ['a / b', { a: 1, b: 0 }, /"b" is zero: cannot divide by zero/],
    ['a % b', { a: 1, b: '0' }, /"b" is zero/],
    ['client.address.city', { client: { name: 'x' } }, /"client.address" is missing/],
    ['client.address.city', { client: { address: null } }, /"client.address.city" cannot be read: "client.address" has no value/],
    ['price * quantity', { price: 'abc', quantity: 2 }, /"price" is not a number \("abc"\)/],
    ['price * 2', {}, /"price" has no value/],
    ['items | sum:"price"', { items: [{ price: 1 }, { price: 'x' }] }, /item 2 of "items" gives "x", not a number/],
    ['items | sum:"price"', { items: 'no' }, /"items" is "no", not a list/],
    ['due | date', { due: '2026-02-30' }, /"due" is not a date/],
    ['items', { items: [1] }, /is a list/],
    ['client', { client: { a: 1 } }, /is an object/],
    ['items[5]', { items: [1] }, /has 1 items/],
    ['x < 3', { x: 'abc' }, /cannot be compared/],
    ['s | number:2', { s: 'twelve' }, /"s" is not a number/],
  ])('%s', (text, scope, message) => {
    expect(() => run(text, scope)).toThrow(ExpressionError);
    expect(() => run(text, scope)).toThrow(message);
  });
});

describe('checked before any input arrives', () => {
  it.each([
    ['price *', /ends too early/],
    ['(a + b', /"\(" needs its "\)"/],
    ['a = 1', /compare with ==/],
    ['"open', /never closed/],
    ['name | shout', /"shout" is not a filter/],
    ['amount | number:"two"', /number of decimals/],
    ['amount | number:2:3', /takes 0 to 1 arguments, not 2/],
    ['amount | currency', /takes 1 to 2 arguments, not 0/],
    ['amount | currency:"EURO"', /three-letter currency code/],
    ['items | sum:price', /must be written out/],
    ['items | sum:2', /expression in quotes/],
    ['items | sum:"price *"', /In "sum:"price \*"": The expression ends too early/],
    ['items | sum:"price | nope"', /"nope" is not a filter/],
    ['x | qrcode', /use it last in an image tag/],
    ['x | barcode:"code39"', /symbology/],
    ['a | number:x', /must be written out/],
    ['a @ b', /"@" cannot be used/],
    ['items | sum:"x" > 5', /put it in parentheses, e.g. \(items \| sum:"price"\) > …/],
  ])('%s', (text, message) => {
    expect(problems(text).join('\n')).toMatch(message);
  });

  it('accepts image filters last in an image tag only', () => {
    expect(problems('payment_url | qrcode', true)).toEqual([]);
    expect(problems('payment_url | qrcode:"H"', true)).toEqual([]);
    expect(problems('sku | barcode:"ean13"', true)).toEqual([]);
    expect(problems('sku | barcode:"code128" | upper', true).join()).toMatch(/use it last/);
    expect(problems('a + b', true).join()).toMatch(/An image tag holds a name/);
  });

  it('gives every problem an offset into the expression', () => {
    const result = compileExpression('a + (b * ');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]!.at).toBe(9);
  });
});

describe('data, never code', () => {
  it.each([
    'constructor',
    'x.constructor',
    'x["constructor"]',
    "x['constructor']",
    'x["\\u0063onstructor"]',
    'x.__proto__',
    'x["__proto__"]["polluted"]',
    'x.prototype',
    '__proto__',
  ])('refuses %s at upload', (text) => {
    expect(problems(text).join()).toMatch(/cannot be used in an expression/);
  });

  it.each(['x.toString()', 'name | upper()', '(x)()', 'x["a"]("b")', 'eval("1")', 'Function("return 1")'])('refuses the function call %s', (text) => {
    expect(problems(text).join()).toMatch(/Function calls are not allowed/);
  });

  it('reaches nothing JavaScript lends a value', () => {
    expect(() => run('x.toString', { x: { a: 1 } })).toThrow(/"x.toString" is missing/);
    expect(() => run('x.hasOwnProperty', { x: {} })).toThrow(/is missing/);
    expect(() => run('s.charAt', { s: 'abc' })).toThrow(/is missing/);
    expect(() => run('items.map', { items: [] })).toThrow(/is missing/);
    // A key computed at run time is held to the same rule.
    expect(() => run('x[k]', { x: {}, k: 'constructor' })).toThrow(/is missing/);
    expect(() => run('x[k]', { x: { a: 1 }, k: '__proto__' })).toThrow(/is missing/);
    // Names only ever read own fields of the data: an object's prototype is never consulted.
    expect(run('toString | default:"none"', {})).toBe('none');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('bounds the length and the nesting', () => {
    expect(problems(`a${' + a'.repeat(150)}`).join()).toMatch(/at most 500 are allowed/);
    expect(problems(`${'('.repeat(100)}a${')'.repeat(100)}`).join()).toMatch(/nested more than 64 levels/);
    expect(problems(`${'!'.repeat(200)}a`).join()).toMatch(/at most 500|nested more than/);
    expect(problems(`${'-'.repeat(100)}1`).join()).toMatch(/nested more than 64 levels/);
  });

  it.each([
    ['1e-99999999999999', '0'],
    ['0.000001 * 0.000001', '0.000000000001'],
  ])('keeps tiny numbers tiny in memory: %s prints %s', (text, expected) => {
    expect(run(text)).toBe(expected);
  });

  it.each(['1e999999999999999', '1e60 * 1e60', 'x * x', '-(x * x)', 'items | sum:"x * x"', '"a" + x * x', 'x * x | number:2', 'x * x > 1 ? 1 : 0'])(
    'refuses numbers past 10^100 instead of printing Infinity: %s',
    (text) => {
      expect(() => run(text, { x: 1e60, items: [{ x: 1e60 }] })).toThrow(/too large/);
    },
  );

  it('never throws anything but ExpressionError, nor prints NaN, Infinity or undefined, on 3,000 random expressions', () => {
    const pieces = [
      'a',
      'b',
      'items',
      's',
      '.',
      'x',
      '1',
      '0',
      '-',
      '+',
      '*',
      '/',
      '%',
      '(',
      ')',
      '[',
      ']',
      '"q"',
      "'",
      '!',
      '&&',
      '||',
      '==',
      '<',
      '>=',
      '?',
      ':',
      '|',
      'sum:"x"',
      'count',
      'upper',
      'number:2',
      'default:"d"',
      'date',
      '1e99',
      '1e-99',
      ' ',
    ];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const scope = { a: 1.5, b: '2', s: 'text', x: 1e50, items: [{ x: 1 }, { x: '2.5' }] };
    let evaluated = 0;
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: 1 + random(12) }, () => pieces[random(pieces.length)]).join('');
      const result = compileExpression(text);
      if (!result.ok) continue;
      try {
        const out = valueToText(evaluate(result.ast, [scope], { locale: 'en-US', budget: new EvaluationBudget(1000) }), 'en-US', text);
        expect(out).not.toMatch(/NaN|Infinity|∞|undefined/);
        evaluated++;
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw new Error(`${text}: ${(error as Error).message}`);
      }
    }
    expect(evaluated).toBeGreaterThan(100);
  });

  it('bounds the text an expression builds', () => {
    const big = 'x'.repeat(300_000);
    expect(() => run('s + s + s + s', { s: big })).toThrow(/at most 1000000 are allowed/);
  });

  it('stops an aggregate nested in an aggregate (10,000 × 10,000 rows) by the budget', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ x: i }));
    const ast = compiled('items | sum:"(items | sum:\\"x\\") * x"');
    expect(() => evaluate(ast, [{ items }], { locale: 'en-US', budget: new EvaluationBudget(50) })).toThrow(/took longer than 50 ms/);
  });

  it('stops a document whose expressions run past the budget', () => {
    const items = Array.from({ length: 200_000 }, (_, i) => ({ x: i }));
    const budget = new EvaluationBudget(5);
    const ast = compiled('items | sum:"x * x + x * x - x / 1"');
    expect(() => {
      for (let i = 0; i < 100; i++) evaluate(ast, [{ items }], { locale: 'en-US', budget });
    }).toThrow(/took longer than 5 ms/);
  });
});

describe('inferred variables', () => {
  const uses = (text: string) => inferVariables(compiled(text, text.includes('qrcode')));

  it.each([
    [
      'price * quantity',
      [
        { path: ['price'], type: 'number' },
        { path: ['quantity'], type: 'number' },
      ],
    ],
    [
      'first + " " + last',
      [
        { path: ['first'], type: 'text' },
        { path: ['last'], type: 'text' },
      ],
    ],
    ['due | date:"D MMMM YYYY"', [{ path: ['due'], type: 'date' }]],
    ['amount | currency:"EUR"', [{ path: ['amount'], type: 'number' }]],
    ['note | default:"n/a"', [{ path: ['note'], type: 'text', optional: true }]],
    ['total > 1000', [{ path: ['total'], type: 'number' }]],
    [
      'status == "paid" && !overdue',
      [
        { path: ['status'], type: 'text' },
        { path: ['overdue'], type: 'boolean' },
      ],
    ],
    ['items.length', [{ path: ['items'], type: 'list' }]],
    ['client.address.city', [{ path: ['client', 'address', 'city'], type: 'text' }]],
    ['items | count', [{ path: ['items'], type: 'list', fields: [] }]],
    [
      'items | sum:"price * quantity" | currency:"EUR"',
      [
        {
          path: ['items'],
          type: 'list',
          fields: [
            { path: ['price'], type: 'number' },
            { path: ['quantity'], type: 'number' },
          ],
        },
      ],
    ],
    ['url | qrcode', [{ path: ['url'], type: 'text' }]],
  ])('%s', (text, expected) => {
    expect(uses(text)).toEqual(expected);
  });
});
