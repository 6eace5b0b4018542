// In-page confirmation (a <dialog>, never window.confirm): the question in red for a
// full crawl or a destructive action, "Annuler" focused first so Enter does not confirm.
import { h } from '/lib/dom.js';

/** Ask; resolves true when the operator confirms. danger: red dialog and red button. */
export function confirmDialog(text, { danger = false, okLabel = 'Confirmer' } = {}) {
  return new Promise((resolve) => {
    const cancel = h('button', { type: 'button', class: 'confirm-cancel' }, 'Annuler');
    const ok = h('button', { type: 'button', class: danger ? 'danger confirm-ok' : 'primary confirm-ok' }, okLabel);
    const dlg = h('dialog', { class: `confirm-dialog${danger ? ' is-danger' : ''}`, 'aria-label': 'Confirmation' },
      h('p', { class: 'confirm-text' }, text),
      h('div', { class: 'toolbar confirm-actions' }, cancel, ok));
    let answered = false;
    const done = (v) => {
      if (answered) return;
      answered = true;
      dlg.close();
      dlg.remove();
      resolve(v);
    };
    cancel.addEventListener('click', () => done(false));
    ok.addEventListener('click', () => done(true));
    dlg.addEventListener('cancel', () => done(false));
    document.body.append(dlg);
    dlg.showModal();
    cancel.focus();
  });
}
