// The legend: what the marks on the map mean. A Leaflet control, folded on phones.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { h } from './dom.js';

function swatch(child) {
  return h('span', { class: 'swatch', 'aria-hidden': 'true' }, child);
}

function entries() {
  return [
    [swatch(h('span', { class: 'bm-marker bm-cluster size-s' })), 'Amas de groupes (cliquer : zoomer)'],
    [swatch(h('span', { class: 'bm-marker bm-point' })), 'Un groupe'],
    [swatch(h('span', { class: 'bm-marker bm-point bm-stack' })), 'Plusieurs groupes au même lieu'],
    [swatch(h('span', { class: 'sw-line' })), 'Parcours du groupe ouvert'],
    [swatch(h('span', { class: 'bm-step bm-step-start sw-step' }, '1')), 'Son départ (étapes numérotées)'],
    [swatch(h('span', { class: 'sw-land' })), 'Pays (Natural Earth)'],
  ];
}

const Legend = L.Control.extend({
  options: { position: 'topright' },
  onAdd() {
    const narrow = window.matchMedia('(max-width: 760px)').matches;
    const box = h('details', { class: 'legend', id: 'legend', open: !narrow },
      h('summary', null, 'Légende'),
      h('ul', null, entries().map(([mark, label]) => h('li', null, mark, h('span', null, label)))));
    L.DomEvent.disableClickPropagation(box);
    return box;
  },
});

export function addLegend(map) {
  new Legend().addTo(map);
}
