// Shared UI bits: flash messages, async buttons, paging, errors.
import { h, clear } from '/lib/dom.js';
import { fmtNum } from './format.js';
import { confirmDialog } from './confirm.js';
import { apiErrorSentence } from './words.js';

let flashBox = null;
export function setFlashBox(el) {
  flashBox = el;
}

/** Show a message (kind: 'error' | 'ok' | 'info'). Text only. */
export function flash(message, kind = 'info', { timeout = kind === 'error' ? 12000 : 5000 } = {}) {
  if (!flashBox) return;
  const item = h(
    'div',
    { class: `flash flash-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    h('span', null, message),
    h('button', { type: 'button', class: 'link', 'aria-label': 'Fermer le message', onclick: () => item.remove() }, '×'),
  );
  flashBox.append(item);
  if (timeout) setTimeout(() => item.remove(), timeout);
  return item;
}

export function errorText(e) {
  if (!e) return 'Erreur inconnue';
  if (e.status) return apiErrorSentence(e);
  return e.message || String(e);
}

/** Inline error block shown inside a view section. */
export function errorBox(e) {
  return h('p', { class: 'error-box', role: 'alert' }, errorText(e));
}

/**
 * Button that runs an async action: disables itself while running,
 * shows errors, optional confirm text (asked in an in-page dialog, red when danger).
 */
export function actionButton(label, action, { confirmText, danger = false, className = '', title, onDone } = {}) {
  const btn = h('button', { type: 'button', class: className, title });
  btn.textContent = label;
  btn.addEventListener('click', async () => {
    if (confirmText && !(await confirmDialog(confirmText, { danger, okLabel: label }))) return;
    btn.disabled = true;
    btn.setAttribute('aria-busy', 'true');
    try {
      const res = await action();
      if (onDone) await onDone(res);
    } catch (e) {
      if (e && e.code === 'aborted') return;
      flash(`${label} : ${errorText(e)}`, 'error');
    } finally {
      btn.disabled = false;
      btn.removeAttribute('aria-busy');
    }
  });
  return btn;
}

/** Summarise a bulk action response ({affected}, {closed}, {deleted}, {id}). */
export function resultText(res) {
  if (!res || typeof res !== 'object') return 'OK';
  const parts = [];
  for (const k of ['affected', 'closed', 'deleted', 'id']) {
    if (k in res) parts.push(`${k} = ${fmtNum(res[k])}`);
  }
  return parts.length ? parts.join(', ') : 'OK';
}

/** Pager for {total, limit, offset}. onPage(newOffset). */
export function pager(data, onPage) {
  const total = Number(data?.total);
  const limit = Number(data?.limit) || 50;
  const offset = Number(data?.offset) || 0;
  const count = Array.isArray(data?.items) ? data.items.length : 0;
  const hasTotal = Number.isFinite(total);
  const from = count ? offset + 1 : 0;
  const to = offset + count;
  const nav = h('nav', { class: 'pager', 'aria-label': 'Pagination' });
  const prev = h('button', { type: 'button', disabled: offset <= 0, onclick: () => onPage(Math.max(0, offset - limit)) }, '← Précédent');
  const next = h(
    'button',
    { type: 'button', disabled: hasTotal ? to >= total : count < limit, onclick: () => onPage(offset + limit) },
    'Suivant →',
  );
  nav.append(prev, h('span', { class: 'muted' }, `${from}–${to}${hasTotal ? ' sur ' + fmtNum(total) : ''}`), next);
  return nav;
}

/** Replace a section's content with a loading line, then call fill(). */
export async function loadInto(el, fill) {
  clear(el).append(h('p', { class: 'muted', 'aria-live': 'polite' }, 'Chargement…'));
  try {
    const node = await fill();
    clear(el);
    if (node) el.append(node);
  } catch (e) {
    if (e && e.code === 'aborted') return;
    clear(el).append(errorBox(e));
  }
}
