import { describe, expect, it } from 'vitest';
import { compileCondition, ConditionError, parseCondition } from '../../domain/formats/template/condition.js';

const holds = (cond: string, v: unknown) => compileCondition(cond)(v);

describe('condition_style language', () => {
  it('compares numbers, numeric text included', () => {
    expect(holds('>= 0', 0)).toBe(true);
    expect(holds('>= 0', -0.5)).toBe(false);
    expect(holds('>0', '12.5')).toBe(true);
    expect(holds('< 10', 10)).toBe(false);
    expect(holds('<= 10', 10)).toBe(true);
    expect(holds('= 3', '3.0')).toBe(true);
    expect(holds('!= 3', 4)).toBe(true);
    expect(holds('<> 3', 3)).toBe(false);
  });

  it('follows the design example ">=0 or <=-10"', () => {
    const p = compileCondition('>=0 or <=-10');
    expect([5, 0, -1, -10, -11].map(p)).toEqual([true, true, false, true, true]);
  });

  it('gives and precedence over or, honours parentheses and not', () => {
    expect(holds('> 10 or > 0 and < 5', 3)).toBe(true);
    expect(holds('> 10 or > 0 and < 5', 7)).toBe(false);
    expect(holds('(> 10 or > 0) and < 5', 7)).toBe(false);
    expect(holds('not (> 0 and < 5)', 3)).toBe(false);
    expect(holds('not > 5', 3)).toBe(true);
    expect(holds('NOT IN (1, 2) AND >= 0', 3)).toBe(true);
  });

  it('never matches a comparison on something that is not a number', () => {
    expect(holds('> 0', 'abc')).toBe(false);
    expect(holds('< 0', null)).toBe(false);
    expect(holds('< 0', undefined)).toBe(false);
    expect(holds('!= 0', 'abc')).toBe(true);
  });

  it('compares text, with dates as text in order', () => {
    expect(holds("= '已退款'", '已退款')).toBe(true);
    expect(holds('= "it\'s"', "it's")).toBe(true);
    expect(holds("= 'it''s'", "it's")).toBe(true);
    expect(holds(">= '2026-01-01' and < '2026-02-01'", '2026-01-15')).toBe(true);
    expect(holds(">= '2026-01-01' and < '2026-02-01'", '2026-02-01')).toBe(false);
    expect(holds("> ''", '')).toBe(false);
  });

  it('supports in, like, null and booleans', () => {
    expect(holds("in ('failed', 'refunded', 3)", 'failed')).toBe(true);
    expect(holds("in ('failed', 'refunded', 3)", 3)).toBe(true);
    expect(holds("in ('failed', 'refunded', 3)", 'ok')).toBe(false);
    expect(holds("like '%test%'", 'A Test order')).toBe(true);
    expect(holds("like 'a_c'", 'abc')).toBe(true);
    expect(holds("like 'a_c'", 'abbc')).toBe(false);
    expect(holds("like '100\\%'", '100%')).toBe(true);
    expect(holds("like '100\\%'", '1000')).toBe(false);
    expect(holds("like 'a.c'", 'abc')).toBe(false);
    expect(holds('= null', '')).toBe(true);
    expect(holds('= null', null)).toBe(true);
    expect(holds('!= null', 0)).toBe(true);
    expect(holds('= true', true)).toBe(true);
    expect(holds('= false', true)).toBe(false);
  });

  it.each([
    ['', /empty condition/],
    ['>=', /expected a value .* but found the end at character 3/],
    ['>= or 1', /expected a value .* but found "or" at character 4/],
    ['> 0 and', /expected a comparison .* but found the end/],
    ['(> 0', /expected "\)" but found the end/],
    ['> 0)', /expected "and", "or" or the end but found "\)"/],
    ["= 'abc", /unterminated string at character 3/],
    ['= abc', /unknown word "abc" \(quote text values/],
    ['in 1, 2', /expected "\(" after in/],
    ['in (1 2)', /expected "," or "\)" but found number 2/],
    ['like 5', /quoted pattern after like/],
    ['> null', /null can only be compared with = or !=/],
    ['0', /expected a comparison/],
    ['> 1 # 2', /unexpected "#"/],
  ])('rejects %j with a clear message', (src, message) => {
    expect(() => parseCondition(src)).toThrow(ConditionError);
    expect(() => parseCondition(src)).toThrow(message);
  });

  it('limits length and nesting', () => {
    expect(() => parseCondition('> 1 or '.repeat(100) + '> 2')).toThrow(/longer than 500 characters/);
    expect(() => parseCondition('('.repeat(30) + '> 1' + ')'.repeat(30))).toThrow(/nested more than 20 levels/);
    expect(() => parseCondition('not '.repeat(30) + '> 1')).toThrow(/nested more than 20 levels/);
  });
});
