// How the mock answers: JSON bodies, CONTRACT's error body, list pages, the query and
// body readers, the session check.

export function send(res, status, body, headers = {}) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(payload);
}
export const err = (res, status, code, message, headers) => send(res, status, { error: { code, message } }, headers);
export function page(items, q) {
  const limit = Math.min(500, Number(q.get('limit') || 50));
  const offset = Number(q.get('offset') || 0);
  return { items: items.slice(offset, offset + limit), total: items.length, limit, offset };
}
export const has = (hay, needle) => String(hay ?? '').toLowerCase().includes(String(needle).toLowerCase());
export const boolQ = (q, k) => (q.has(k) && q.get(k) !== '' ? ['true', '1'].includes(q.get(k)) : null);
export async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const t = Buffer.concat(chunks).toString();
  return t ? JSON.parse(t) : {};
}
export function authed(req) {
  return /(?:^|;\s*)bandmap_session=ok/.test(req.headers.cookie || '');
}
