// The benchmark source's rows (an orders table, seven columns) as JSON text, written directly (no
// objects, no JSON.stringify): served by bench/source.ts, encoded alone by bench/encode-formats.ts.
const STATUSES = ['paid', 'refunded', 'pending', 'shipped'];

export function rowJson(i: number): string {
  const id = i + 1;
  const amount = ((i * 7919) % 100_000) / 100;
  const day = String(1 + (i % 28)).padStart(2, '0');
  return `{"id":${id},"order_no":"SO${String(id).padStart(10, '0')}","customer":"客户 ${id % 5000}","amount":${amount},"status":"${STATUSES[i % 4]}","created_at":"2026-11-${day}T08:${String(i % 60).padStart(2, '0')}:00Z","remark":"${i % 9 === 0 ? 'gift, wrap \\"red\\"' : ''}"}`;
}
