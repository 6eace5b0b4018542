// The front end's files, served as `bandmap serve` serves them (crates/api/src/web.rs):
// / → map/index.html, /map/*, /lib/*, /vendor/*, /admin/*, /favicon.svg, /embed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { err } from './respond.mjs';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.geojson': 'application/geo+json',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
};

const ADMIN_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
  + "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// /embed (issue 28): the map page as the real server shapes it (crates/api/src/pages/map_page.rs),
// reduced to what the browser tests look at: the classes hiding the controls, the stylesheet,
// the credit line linking back.
function serveEmbed(res) {
  fs.readFile(path.join(WEB, 'map/index.html'), 'utf8', (e, page) => {
    if (e) return err(res, 404, 'not_found', 'not found');
    const html = page
      .replace('<html lang="fr">', '<html lang="fr" class="embed embed-no-search embed-no-filters embed-no-timeline">')
      .replace('</head>', '<link rel="stylesheet" href="/map/embed.css"></head>')
      .replace(/<\/body>(?![\s\S]*<\/body>)/, '<p class="embed-credit"><a href="/" target="_blank" rel="noopener">Band Map — voir la carte complète ↗</a></p></body>');
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.end(html);
  });
}

export function serveStatic(req, res, pathname) {
  let rel;
  if (pathname === '/embed') return serveEmbed(res);
  if (pathname === '/' || pathname === '/index.html') rel = 'map/index.html';
  else if (pathname === '/admin' || pathname === '/admin/') rel = 'admin/index.html';
  else if (pathname === '/favicon.svg') rel = 'favicon.svg';
  else if (/^\/(map|lib|vendor|admin)\//.test(pathname)) rel = pathname.slice(1);
  else return err(res, 404, 'not_found', 'not found');
  const file = path.resolve(WEB, rel);
  if (!file.startsWith(WEB + path.sep)) return err(res, 404, 'not_found', 'not found');
  fs.readFile(file, (e, buf) => {
    if (e) return err(res, 404, 'not_found', 'not found');
    const headers = { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-cache' };
    // The admin page gets the real server's policy (crates/api/src/security_headers.rs), so the
    // tests' CSP watch means something against the mock too.
    if (rel === 'admin/index.html') headers['Content-Security-Policy'] = ADMIN_CSP;
    res.writeHead(200, headers);
    // The real server adds the "Intégrer" dialog to the map page (issue 28).
    if (rel === 'map/index.html') {
      res.end(buf.toString('utf8').replace('</head>',
        '<link rel="stylesheet" href="/map/share.css"><script type="module" src="/map/share.js"></script></head>'));
      return;
    }
    res.end(buf);
  });
}
