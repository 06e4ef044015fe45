// The design's own example template (下载中心设计, 列标题): recharge and refund figures by source.
export const rechargeTemplate = [
  { name: 'source', title: '来源方式' },
  {
    name: 'recharge',
    title: '充值',
    children: [
      { name: 'recharge_num', title: '充值笔数' },
      { name: 'pay_money', title: '付款金额' },
      { name: '_', title: '其中', children: [{ name: 'wechat', title: '微信支付' }, { name: 'alipay', title: '支付宝' }] },
      { name: 'recharge_money', title: '充值金额' },
      { name: 'reduction', title: '优惠汇总' },
    ],
  },
  {
    name: 'refund',
    title: '退款',
    children: [
      { name: 'refund_num', title: '退款笔数' },
      { name: 'refund_money', title: '退款金额' },
      { name: 'real_refund_money', title: '实退金额' },
    ],
  },
];

type Node = { name?: string; title?: string; children?: Node[] } & Record<string, unknown>;

/** The node options the design lists, by node name: types, formats, styles, condition styles. */
const STYLES: Record<string, Record<string, unknown>> = {
  source: { align: 'left', bold: true, width: 14 },
  recharge: { bg_color: 'FFE2EFDA' },
  recharge_num: { type: 'integer' },
  pay_money: { type: 'money' },
  wechat: { type: 'money', color: 'green' },
  alipay: { type: 'money', color: 'blue' },
  recharge_money: { type: 'money', condition_style: [{ condition: '>= 10000', color: 'red', bold: true }] },
  reduction: { type: 'percent' },
  refund: { bg_color: 'FFFCE4D6' },
  refund_num: { type: 'integer' },
  refund_money: { type: 'money', format: '#,##0.00;[Red]-#,##0.00' },
  real_refund_money: { type: 'money', condition_style: [{ condition: '> 0 and < 100', bg_color: 'yellow' }, { condition: '>= 100', bg_color: 'FFF8CBAD', bold: true }] },
};
const styled = (nodes: Node[]): Node[] =>
  nodes.map(({ children, ...node }) => ({ ...node, ...STYLES[node.name ?? ''], ...(children ? { children: styled(children) } : {}) }));

/** The same tree with the node options the design lists. */
export const styledRechargeTemplate = styled(rechargeTemplate);

const SOURCES = ['微信公众号', '支付宝生活号', '小程序', 'APP', '油站POS', '其他'];
const REAL_REFUND: unknown[] = [0, 50, 150, 99.99, '=1+2', '0012'];
/** Rows for the recharge template: typed values, a formula-looking text, numeric text with a leading zero. */
export const rechargeRow = (i: number) => ({
  source: SOURCES[i % 6],
  recharge_num: 100 + i * 37,
  pay_money: 5000 + i * 2500.5,
  wechat: 3000 + i * 1000,
  alipay: '2000.25',
  recharge_money: i * 3000,
  reduction: 0.05,
  refund_num: i,
  refund_money: i === 2 ? -30 : i * 10,
  real_refund_money: REAL_REFUND[i % 6],
});
