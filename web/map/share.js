// "Intégrer" (issue 28): a button in the map's bar opens a dialog printing the <iframe>
// snippet of /embed at the current view and filters, with the embed's controls to switch.
// Loaded by the server beside map.js (crates/api/src/pages/map_page.rs); reads the view
// from the page URL, which state.js keeps current.

import { t, lang } from './i18n.js';

const CONTROLS = [
  ['search', t('map.share.search'), false],
  ['filters', t('map.filters'), false],
  ['timeline', t('map.share.timeline'), false],
  ['legend', t('map.legend.title'), true],
];

function origin() {
  const meta = document.querySelector('meta[name="bandmap-origin"]')?.content?.trim();
  return /^https?:\/\/[^\s"<>]+$/.test(meta ?? '') ? meta.replace(/\/$/, '') : location.origin;
}

/** The embed URL of the current view, with the chosen controls. */
export function embedUrl(choices) {
  const q = new URLSearchParams(location.search);
  q.delete('band');
  // The embed speaks the language of the page it was made on (the blog's, presumably).
  q.set('lang', lang);
  for (const [name, , fallback] of CONTROLS) {
    q.delete(name);
    if (choices[name] !== fallback) q.set(name, choices[name] ? '1' : '0');
  }
  const s = q.toString();
  return `${origin()}/embed${s ? `?${s}` : ''}`;
}

function escapeAttr(text) {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The snippet to paste into another page. */
export function snippet(choices, height) {
  return `<iframe src="${escapeAttr(embedUrl(choices))}" title="${escapeAttr(t('map.share.iframe_title'))}" `
    + `width="100%" height="${height}" style="border:0" loading="lazy" allow="fullscreen"></iframe>`;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

function build() {
  const bar = document.querySelector('header.bar');
  if (!bar || document.getElementById('share-open')) return;
  const open = el('button', { type: 'button', id: 'share-open', class: 'share-open', 'aria-haspopup': 'dialog' }, t('map.share.open'));
  const code = el('textarea', { id: 'share-code', readonly: '', rows: '4', spellcheck: 'false' });
  const boxes = CONTROLS.map(([name, label, fallback]) => {
    const input = el('input', { type: 'checkbox', id: `share-${name}`, name });
    input.checked = fallback;
    return { name, input, label: el('label', { for: `share-${name}` }, label) };
  });
  const height = el('input', { type: 'number', id: 'share-height', min: '240', max: '1200', step: '10', value: '480', inputmode: 'numeric' });
  const copy = el('button', { type: 'button', class: 'primary', id: 'share-copy' }, t('map.share.copy'));
  const close = el('button', { type: 'button', id: 'share-close' }, t('map.share.close'));
  const said = el('p', { class: 'share-said', role: 'status', 'aria-live': 'polite' });
  const dialog = el('dialog', { id: 'share-dialog', class: 'share-dialog', 'aria-labelledby': 'share-title' },
    el('h2', { id: 'share-title' }, t('map.share.title')),
    el('p', {}, t('map.share.intro')),
    el('fieldset', {}, el('legend', {}, t('map.share.controls')),
      ...boxes.map((b) => el('span', { class: 'share-choice' }, b.input, ' ', b.label))),
    el('p', {}, el('label', { for: 'share-height' }, t('map.share.height')), height),
    el('label', { for: 'share-code', class: 'sr-only' }, t('map.share.code')),
    code,
    el('div', { class: 'actions' }, copy, close),
    said);
  const refresh = () => {
    const choices = Object.fromEntries(boxes.map((b) => [b.name, b.input.checked]));
    const h = Math.max(240, Math.min(1200, Math.round(Number(height.value)) || 480));
    code.value = snippet(choices, h);
  };
  dialog.addEventListener('input', refresh);
  open.addEventListener('click', () => {
    refresh();
    said.textContent = '';
    dialog.showModal();
    code.focus();
    code.select();
  });
  close.addEventListener('click', () => dialog.close());
  copy.addEventListener('click', async () => {
    code.select();
    try {
      await navigator.clipboard.writeText(code.value);
      said.textContent = t('map.share.copied');
    } catch {
      said.textContent = t('map.share.select');
    }
  });
  const toggle = bar.querySelector('.filters-toggle');
  bar.insertBefore(open, toggle);
  document.body.append(dialog);
}

build();
