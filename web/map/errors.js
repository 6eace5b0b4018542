// The page's error banner: what went wrong, in words, instead of an empty map.
// Each source (clusters, outline, card…) has one slot; clearing it removes its line.
import { $, h } from '/lib/dom.js';
import { t } from './i18n.js';

const messages = new Map();

function render() {
  const box = $('page-error');
  box.replaceChildren(...[...messages.values()].map(({ text, retry }) => h('p', null, text,
    retry ? h('button', { type: 'button', class: 'retry', onclick: retry }, t('map.retry')) : null)));
  box.hidden = messages.size === 0;
}

export function showError(key, text, retry) {
  messages.set(key, { text, retry });
  render();
}

export function clearError(key) {
  if (messages.delete(key)) render();
}
