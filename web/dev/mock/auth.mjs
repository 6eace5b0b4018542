// Admin authentication (CONTRACT §5): login with a lockout after five failures, logout,
// the current session. The session is a cookie the mock recognises (`authed`).
import { send, err, authed } from './respond.mjs';
import { MOCK_USER, MOCK_PASSWORD } from './fixtures.mjs';

export const routes = [
  {
    method: 'POST', path: '/admin/auth/login',
    handle: ({ state, res, body }) => {
      const key = String(body.username);
      const f = state.failures.get(key) || 0;
      if (f >= 5) return err(res, 429, 'rate_limited', 'too many attempts', { 'Retry-After': '900' });
      if (body.username === MOCK_USER && body.password === MOCK_PASSWORD) {
        state.failures.delete(key);
        return send(res, 200, { username: MOCK_USER }, { 'Set-Cookie': 'bandmap_session=ok; HttpOnly; Secure; SameSite=Strict; Path=/admin; Max-Age=43200' });
      }
      state.failures.set(key, f + 1);
      return err(res, 401, 'unauthorized', 'invalid credentials');
    },
  },
  {
    method: 'POST', path: '/admin/auth/logout',
    handle: ({ res }) => {
      res.writeHead(204, { 'Set-Cookie': 'bandmap_session=; Path=/admin; Max-Age=0' });
      return res.end();
    },
  },
  {
    method: 'GET', path: '/admin/auth/me',
    handle: ({ req, res }) => (authed(req) ? send(res, 200, { username: MOCK_USER }) : err(res, 401, 'unauthorized', 'no session')),
  },
];
