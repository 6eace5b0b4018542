// Map markers: divIcons (no image files, so they work offline), focusable, activated by
// click, Enter or Space.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { h } from '/lib/dom.js';

/** A round marker; `ring` (a CSS background, e.g. the families' conic-gradient) paints
 *  its rim, set through the CSSOM (allowed by the page's style-src 'self'). */
export function markerIcon(className, size, label, ring = null) {
  const el = h('span', { 'aria-hidden': 'true' }, label);
  const icon = L.divIcon({ html: el, className: `bm-marker ${className}`, iconSize: [size, size] });
  if (!ring) return icon;
  // Leaflet creates the marker element from the options; paint it once created.
  const create = icon.createIcon.bind(icon);
  icon.createIcon = (old) => {
    const div = create(old);
    div.style.setProperty('--ring', ring);
    return div;
  };
  return icon;
}

export function accessibleMarker(latlng, icon, ariaLabel, onActivate, data) {
  const m = L.marker(latlng, { icon, keyboard: true, title: ariaLabel, riseOnHover: true });
  m.on('click', onActivate);
  m.on('add', () => {
    const el = m.getElement();
    if (!el) return;
    el.setAttribute('role', 'button');
    el.setAttribute('aria-label', ariaLabel);
    for (const [k, v] of Object.entries(data || {})) el.dataset[k] = String(v);
    el.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        onActivate();
      }
    });
  });
  return m;
}

export function clusterSize(count) {
  return Math.round(Math.min(64, 26 + Math.log2(Math.max(1, count)) * 5));
}
