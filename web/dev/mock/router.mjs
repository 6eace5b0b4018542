// The mock's routes, one module per API area, matched the way the OpenAPI document names
// them: a path template whose `{param}` segments stand for numeric ids.
import { routes as publicRoutes } from './public.mjs';
import { routes as authRoutes } from './auth.mjs';
import { routes as monitoringRoutes } from './monitoring.mjs';
import { routes as jobRoutes } from './jobs.mjs';
import { routes as bandRoutes } from './bands.mjs';
import { routes as locationRoutes } from './locations.mjs';
import { routes as llmRoutes } from './llm.mjs';

/** Every route the mock answers: {method, path (an OpenAPI path template), handle(ctx)}. */
export const ROUTES = [
  ...publicRoutes, ...authRoutes, ...monitoringRoutes, ...jobRoutes, ...bandRoutes, ...locationRoutes, ...llmRoutes,
];

/** The regular expression of a path template (`/api/bands/{ma_id}`). */
const pattern = (template) => new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '(\\d+)')}$`);
const COMPILED = ROUTES.map((r) => ({ ...r, re: pattern(r.path) }));

/** The route answering `method` `pathname`, with its numeric parameter (`id`), or null. */
export function match(method, pathname) {
  for (const r of COMPILED) {
    if (r.method !== method) continue;
    const m = pathname.match(r.re);
    if (m) return { route: r, id: m[1] === undefined ? NaN : Number(m[1]) };
  }
  return null;
}
