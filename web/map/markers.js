// Map markers: divIcons (no image files, so they work offline), focusable, activated by
// click, Enter or Space.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { h } from '/lib/dom.js';

/** A round marker; `ring` (a CSS background, e.g. the families' conic-gradient) paints
 *  its rim, set through the CSSOM (allowed by the page's style-src 'self'). `shift`
 *  ({dx, dy} px, placement.js): the marker is drawn that far from its place, tied to it by
 *  a thin line from its rim (`rim` px from its centre) to a dot on the true place. */
export function markerIcon(className, size, label, ring = null, shift = null, rim = size / 2) {
  const el = h('span', { 'aria-hidden': 'true' }, label);
  const dx = shift?.dx ?? 0;
  const dy = shift?.dy ?? 0;
  const moved = dx !== 0 || dy !== 0;
  const icon = L.divIcon({
    html: el, className: `bm-marker ${className}`, iconSize: [size, size],
    // Leaflet's own anchor is the half size rounded; the shift moves the box off it.
    iconAnchor: moved ? [Math.round(size / 2) - dx, Math.round(size / 2) - dy] : undefined,
  });
  const len = Math.hypot(dx, dy);
  const tether = len > rim + 2;
  if (!ring && !moved) return icon;
  // Leaflet creates the marker element from the options; paint it once created.
  const create = icon.createIcon.bind(icon);
  icon.createIcon = (old) => {
    const div = create(old);
    if (ring) div.style.setProperty('--ring', ring);
    if (moved) div.dataset.shift = `${dx},${dy}`;
    if (tether) {
      const line = h('i', { class: 'bm-tether', 'aria-hidden': 'true' });
      line.style.setProperty('--len', `${len.toFixed(1)}px`);
      line.style.setProperty('--from', `${rim}px`);
      line.style.setProperty('--ang', `${Math.atan2(-dy, -dx).toFixed(4)}rad`);
      div.append(line);
    }
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
