// The minio client has no deadline of its own: a bucket that accepts the connection and never
// answers would hold a request for ever. The caller closes the agent afterwards, which ends the socket.

export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'delivery_timeout' })), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
