// Masks (docs/formats.md#masked-columns): each preset on Latin, Chinese and emoji text, values
// shorter than what is kept, non-text values, the hash; a page's rows masked in each shape the
// writers read (objects, Excel's arrays and groups, a key named __proto__); the plan (the project's
// masks over the template's, a group's mask, a bad mask); the encoder's both paths; and properties
// of every mask over arbitrary text (fast-check).
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { pageMasker } from '../../domain/formats/mask/rows.js';
import { maskPlan } from '../../domain/formats/mask/plan.js';
import { characters, hashText, maskText, maskValue } from '../../domain/formats/mask/text.js';
import encodePage from '../../domain/staging/page-encoder.worker.js';
import { metaFromProbe } from '../../domain/staging/meta.js';
import { maskSchema, type MaskSpec } from '../../model/mask.js';
import { storedSettingsSchema } from '../../model/project-settings.js';
import { parseTemplate } from '../../domain/formats/template/template.js';

const KEY = Buffer.alloc(32, 7);
const m = (s: string, spec: MaskSpec) => maskText(s, spec, KEY);

describe('presets', () => {
  it('phone keeps the first 3 and the last 4 characters', () => {
    expect(m('13800000000', 'phone')).toBe('138****0000');
    expect(m('+8613812345678', 'phone')).toBe('+86*******5678');
  });

  it('id_card and bank_card keep the first 6 and the last 4', () => {
    expect(m('11010519491231002X', 'id_card')).toBe('110105********002X');
    expect(m('6222021234567890123', 'bank_card')).toBe('622202*********0123');
  });

  it('name keeps the first character, one * per other character, Chinese included', () => {
    expect(m('张三丰', 'name')).toBe('张**');
    expect(m('张三', 'name')).toBe('张*');
    expect(m('Alice', 'name')).toBe('A****');
    expect(m('欧阳娜娜', 'name')).toBe('欧***');
  });

  it('email keeps the local part\'s first character and the domain, with three * whatever the length', () => {
    expect(m('alice@example.com', 'email')).toBe('a***@example.com');
    expect(m('a@x.cn', 'email')).toBe('a***@x.cn');
    expect(m('张伟@公司.中国', 'email')).toBe('张***@公司.中国');
    // The last @ splits: a quoted local part may hold one.
    expect(m('"a@b"@example.com', 'email')).toBe('"***@example.com');
    // Not an address: every character hidden.
    expect(m('no-at-sign', 'email')).toBe('**********');
    expect(m('@example.com', 'email')).toBe('************');
    expect(m('alice@', 'email')).toBe('******');
  });

  it('keep_start / keep_end keep what they say, and hide all of a value no longer than that', () => {
    expect(m('abcdefgh', { keep_start: 2, keep_end: 1 })).toBe('ab*****h');
    expect(m('abcdefgh', { keep_start: 0, keep_end: 0 })).toBe('********');
    expect(m('abc', { keep_start: 2, keep_end: 1 })).toBe('***');
    expect(m('abcd', { keep_start: 2, keep_end: 1 })).toBe('ab*d');
    expect(m('1234567', 'phone')).toBe('*******');
    expect(m('张', 'name')).toBe('*');
  });

  it('counts characters, not bytes or UTF-16 units: emoji, joined emoji and combining accents are one each', () => {
    expect(characters('a👍b')).toEqual(['a', '👍', 'b']);
    expect(m('👨‍👩‍👧🙂😀😁😂🤣', 'name')).toBe('👨‍👩‍👧*****');
    expect(m('😀😁😂🤣😃😄😅😆', 'phone')).toBe('😀😁😂*😃😄😅😆');
    expect(m('e\u0301tienne', 'name')).toBe('e\u0301******');
    expect(m('13800😀0000', 'phone')).toBe('138***0000');
  });

  it('hash is HMAC-SHA256 of the text under the project key, lowercase hex, the same for the same value', () => {
    const h = m('13800000000', 'hash');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).toBe(hashText('13800000000', KEY));
    expect(h).toBe(createHmac('sha256', KEY).update('13800000000').digest('hex'));
    // A key longer than SHA-256's block is hashed first, as RFC 2104 says.
    const long = Buffer.alloc(100, 3);
    expect(maskText('张三', 'hash', long)).toBe(createHmac('sha256', long).update('张三').digest('hex'));
    expect(maskText('13800000000', 'hash', Buffer.alloc(32, 8))).not.toBe(h);
    // A number hashes as its text: the same as the text the source might send instead.
    expect(maskValue(13800000000, 'hash', KEY)).toBe(h);
    expect(() => maskText('x', 'hash', undefined)).toThrow();
  });

  it('masks numbers, booleans and nested values as their JSON text; null, absent and empty stay so', () => {
    expect(maskValue(13800000000, 'phone', KEY)).toBe('138****0000');
    expect(maskValue(true, 'name', KEY)).toBe('t***');
    expect(maskValue({ a: 1 }, { keep_start: 1, keep_end: 1 }, KEY)).toBe('{*****}');
    expect(maskValue([1, 2], 'name', KEY)).toBe('[****');
    expect(maskValue(null, 'phone', KEY)).toBeNull();
    expect(maskValue(undefined, 'phone', KEY)).toBeUndefined();
    expect(maskValue('', 'hash', KEY)).toBe('');
  });

  it('refuses a mask that is not one', () => {
    for (const bad of ['mobile', { keep_start: -1 }, { keep_start: 65 }, { keep_start: 1.5 }, { keep_start: 1, extra: 1 }, null, 3]) {
      expect(maskSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(maskSchema.parse({ keep_end: 4 })).toEqual({ keep_start: 0, keep_end: 4 });
  });
});

describe('a page masked', () => {
  it('flat rows: by key, own keys only, a key named __proto__ included, in place and in key order', () => {
    const rows = JSON.parse('[{"id":1,"phone":"13800000000","name":"张三丰"},{"id":2,"__proto__":"secret-value"},{"id":3}]') as Array<Record<string, unknown>>;
    const plan = Object.fromEntries([['phone', 'phone'], ['name', 'name'], ['__proto__', { keep_start: 0, keep_end: 0 }]]) as Record<string, MaskSpec>;
    pageMasker({ plan, shape: 'flat', columns: [] })(rows);
    expect(rows[0]).toEqual({ id: 1, phone: '138****0000', name: '张**' });
    expect(Object.keys(rows[0]!)).toEqual(['id', 'phone', 'name']);
    expect(Object.getOwnPropertyDescriptor(rows[1], '__proto__')?.value).toBe('************');
    expect(rows[2]).toEqual({ id: 3 });
  });

  it('a plan built with a __proto__ column keeps it as a column', () => {
    const plan = maskPlan([{ name: '__proto__', mask: 'name' }], {});
    expect(Object.getOwnPropertyDescriptor(plan, '__proto__')?.value).toBe('name');
  });

  it('Excel rows given as arrays are masked by column position; groups of rows by the writer\'s rules', () => {
    const job = { plan: { phone: 'phone' as const }, shape: 'excel' as const, columns: ['id', 'phone'] };
    expect(pageMasker(job)([[1, '13800000000'], { id: 2, phone: '13900000000' }])).toEqual([[1, '138****0000'], { id: 2, phone: '139****0000' }]);
    const groups = [[{ phone: '13800000000' }, [3, '13700000000']], { east: [{ phone: '13600000000' }] }, { phone: '13500000000', id: 9 }];
    expect(pageMasker({ ...job, shape: 'excel-groups' })(groups)).toEqual([[{ phone: '138****0000' }, [3, '137****0000']], { east: [{ phone: '136****0000' }] }, { phone: '135****0000', id: 9 }]);
  });
});

describe('the plan', () => {
  it('takes the template\'s masks, a group\'s for its columns without one, and the project\'s over them', () => {
    const template = [{ name: 'id' }, { title: 'who', mask: 'name', children: [{ name: 'first' }, { name: 'phone', mask: 'phone' }] }, { name: 'card', mask: 'hash' }];
    expect(maskPlan(template, {})).toEqual({ first: 'name', phone: 'phone', card: 'hash' });
    // A task cannot unmask: the project's word wins for its columns.
    expect(maskPlan(template, { card: 'bank_card', email: 'email' })).toEqual({ first: 'name', phone: 'phone', card: 'bank_card', email: 'email' });
  });

  it('a source template\'s bad mask fails the task template_invalid, naming the column', () => {
    const err = (() => {
      try {
        maskPlan([{ name: 'phone', mask: 'mobile' }], {});
      } catch (e) {
        return e as DomainError;
      }
    })();
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'template_invalid', message: expect.stringContaining('"phone"') });
  });

  it('the submitted template keeps its masks and refuses a bad one with a path', () => {
    const ok = parseTemplate([{ name: 'phone', mask: { keep_start: 3 } }]);
    expect(ok.ok && ok.template.ceil[0]!.mask).toEqual({ keep_start: 3, keep_end: 0 });
    const bad = parseTemplate([{ name: 'id' }, { name: 'phone', mask: 'mobile' }]);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.issues[0]!.path).toEqual([1, 'mask']);
  });

  it('the probe makes a masked column text (Parquet\'s type) and keeps the plan in the sheet\'s meta', () => {
    const meta = metaFromProbe(
      { total: 1, data: [{ id: 1, phone: 13800000000 }], template: [{ name: 'id', type: 'integer' }, { name: 'phone', type: 'integer' }] },
      { type: 'parquet', pageSize: 100, options: {}, masks: { phone: 'phone' } },
      1000,
    );
    expect(meta.columns).toEqual([{ key: 'id', title: 'id', type: 'integer' }, { key: 'phone', title: 'phone', type: 'string' }]);
    expect(meta.masks).toEqual({ phone: 'phone' });
    const plain = metaFromProbe({ total: 1, data: [{ id: 1 }] }, { type: 'csv', pageSize: 100, options: {} }, 1000);
    expect(plain.masks).toBeUndefined();
  });

  it('mask_columns is a project setting with limits', () => {
    expect(storedSettingsSchema.parse({}).mask_columns).toEqual({});
    expect(storedSettingsSchema.parse({ mask_columns: { phone: 'phone' } }).mask_columns).toEqual({ phone: 'phone' });
    expect(storedSettingsSchema.safeParse({ mask_columns: { '': 'phone' } }).success).toBe(false);
    expect(storedSettingsSchema.safeParse({ mask_columns: { phone: 'mobile' } }).success).toBe(false);
    const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`c${i}`, 'name']));
    expect(storedSettingsSchema.safeParse({ mask_columns: many }).success).toBe(false);
  });
});

describe('the page encoder', () => {
  const page = JSON.stringify({ total: 2, data: [{ id: 1, phone: '13800000000' }, { id: 2, phone: '13912345678' }] });
  const columns = [{ key: 'id', title: 'id' }, { key: 'phone', title: 'phone' }];
  const run = (ext: 'csv' | 'jsonl', mask?: Parameters<typeof encodePage>[0]['mask']) => {
    const r = encodePage({ body: Buffer.from(page), page: 0, where: 'page 0', probed: { total: 2, pageSize: 2 }, columns, ext, mask });
    if (!r.ok) throw new Error(r.message);
    return Buffer.from(r.staged).toString('utf8');
  };

  it('masks a page on the way from the source\'s bytes to staged CSV and JSON Lines; without a mask the bytes path is unchanged', () => {
    const mask = { plan: { phone: 'phone' as const }, shape: 'flat' as const, columns: ['id', 'phone'] };
    expect(run('csv', mask)).toBe('1,138****0000\r\n2,139****5678\r\n');
    expect(run('jsonl', mask)).toBe('{"id":1,"phone":"138****0000"}\n{"id":2,"phone":"139****5678"}\n');
    expect(run('csv')).toBe('1,13800000000\r\n2,13912345678\r\n');
  });
});

describe('properties', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '张', '三', '😀', '👨‍👩‍👧', 'e\u0301', ' ', '@', '.'), maxLength: 40 });
  const spec: fc.Arbitrary<MaskSpec> = fc.oneof(
    fc.constantFrom<MaskSpec>('phone', 'id_card', 'bank_card', 'email', 'name', 'hash'),
    fc.record({ keep_start: fc.integer({ min: 0, max: 64 }), keep_end: fc.integer({ min: 0, max: 64 }) }),
  );

  it('a masked non-empty value is never the value itself', () => {
    fc.assert(fc.property(text.filter((s) => s.length > 0), spec, (s, sp) => m(s, sp) !== s));
  });

  it('keep_start / keep_end: the same number of characters, the ends kept, each hidden one a *', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 }), (s, start, end) => {
        const chars = characters(s);
        const out = characters(m(s, { keep_start: start, keep_end: end }));
        expect(out).toHaveLength(chars.length);
        if (chars.length <= start + end) return out.every((c) => c === '*');
        expect(out.slice(0, start)).toEqual(chars.slice(0, start));
        expect(out.slice(chars.length - end)).toEqual(chars.slice(chars.length - end));
        return out.slice(start, chars.length - end).every((c) => c === '*');
      }),
    );
  });

  // Found by checking every code point beside a few neighbours against the segmenter (a property
  // run found U+0E33 first): letters that join without being marks, and Prepend characters.
  it('characters join as the segmenter does for the non-mark joiners (fixed examples)', () => {
    const segmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
    const segments = (s: string) => Array.from(segmenter.segment(s), (g) => g.segment);
    const joiners = [0xd4e, 0xe33, 0xeb3, 0xff9e, 0xff9f, 0x111c2, 0x111c3, 0x113d1, 0x1193f, 0x11941, 0x11a84, 0x11a89, 0x11d46, 0x11f02, 0x16d63, 0x16d6a];
    for (const cp of joiners) {
      for (const s of [`a${String.fromCodePoint(cp)}`, `${String.fromCodePoint(cp)}a`, `\uac00${String.fromCodePoint(cp)}\u0e01`]) expect(characters(s)).toEqual(segments(s));
    }
  });

  it('characters are the grapheme clusters Intl.Segmenter finds, for any text', () => {
    const segmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
    const segments = (s: string) => Array.from(segmenter.segment(s), (g) => g.segment);
    for (const unit of ['binary', 'grapheme', 'grapheme-composite'] as const) {
      fc.assert(fc.property(fc.string({ unit, maxLength: 30 }), (s) => JSON.stringify(characters(s)) === JSON.stringify(segments(s))), { numRuns: 500 });
    }
    fc.assert(fc.property(text, (s) => JSON.stringify(characters(s)) === JSON.stringify(segments(s))));
  });

  it('hash is HMAC-SHA256 as node:crypto computes it, for any text and key', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.uint8Array({ minLength: 1, maxLength: 100 }), (s, k) => {
      const key = Buffer.from(k);
      return hashText(s, key) === createHmac('sha256', key).update(s, 'utf8').digest('hex');
    }));
  });

  it('hash: 64 hex digits, equal exactly when the values are equal', () => {
    fc.assert(fc.property(text, text, (a, b) => (a === '' || b === '' ? true : (m(a, 'hash') === m(b, 'hash')) === (a === b) && /^[0-9a-f]{64}$/.test(m(a, 'hash')))));
  });
});
