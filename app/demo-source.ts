// A built-in demo source: a few thousand realistic orders with Chinese text, served with the
// source protocol (page from 0, page_size) so a newcomer can export something at once.
import { Hono } from 'hono';

const shops = ['上海徐汇加油站', '北京朝阳门店', '深圳南山旗舰店', '杭州西湖便利店', '成都春熙路店', '广州天河店'];
const items = ['92号汽油', '95号汽油', '0号柴油', '矿泉水 550ml', '洗车服务', '润滑油 4L', '便利店商品'];
const pays = ['微信支付', '支付宝', '银联卡', '现金', '会员储值'];
const names = ['张伟', '王芳', '李娜', '刘洋', '陈静', '杨磊', '赵敏', '黄强'];

/** Deterministic: row i is always the same, so exports can be checked. */
export function demoOrder(i: number) {
  const day = 1 + (i % 28);
  const cents = ((i * 7919) % 90000) + 1000;
  return {
    order_no: `DC${String(20261100000 + i)}`,
    created_at: `2026-11-${String(day).padStart(2, '0')} ${String(8 + (i % 12)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
    shop: shops[i % shops.length],
    customer: names[(i * 3) % names.length],
    item: items[(i * 5) % items.length],
    quantity: 1 + (i % 9),
    amount: cents / 100,
    payment: pays[(i * 11) % pays.length],
    remark: i % 13 === 0 ? '发票抬头：某某科技有限公司, "加急"' : '',
  };
}

export function demoSourceApp(rows = 5000) {
  const app = new Hono();
  app.get('/orders', (c) => {
    const page = Number(c.req.query('page') ?? 0);
    const size = Number(c.req.query('page_size') ?? 500);
    if (!Number.isInteger(page) || page < 0 || !Number.isInteger(size) || size < 1 || size > 1000) {
      return c.json({ error: 'page must be ≥ 0 and page_size 1–1000' }, 400);
    }
    const from = page * size;
    const data = [];
    for (let i = from; i < Math.min(rows, from + size); i++) data.push(demoOrder(i));
    return c.json({ total: rows, data, header: { 导出人: '演示用户', 数据范围: '2026年11月' } });
  });
  return app;
}
