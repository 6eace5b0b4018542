// Admin console entry: session check, login/logout, hash routing to the five views.
import { auth, authEvents } from './api.js';
import { clear, h } from '/lib/dom.js';
import { parseHash } from './router.js';
import { flash, setFlashBox, errorText } from './ui.js';
import { installKeys } from './keys.js';
import * as pilotage from './views/pilotage.js';
import * as bands from './views/bands.js';
import * as locations from './views/locations.js';
import * as journal from './views/journal.js';
import * as llm from './views/llm.js';

const views = { pilotage, bands, locations, journal, llm };
const TITLES = { pilotage: 'Pilotage', bands: 'Groupes', locations: 'Localisations', journal: 'Journal', llm: 'LLM & coûts' };

const $ = (id) => document.getElementById(id);
let current = null; // {view, unmount}
let loggedIn = false;

function showLogin(message) {
  loggedIn = false;
  unmountCurrent();
  $('app').hidden = true;
  $('login-screen').hidden = false;
  const err = $('login-error');
  if (message) {
    err.textContent = message;
    err.hidden = false;
  } else {
    err.hidden = true;
  }
  $('login-username').focus();
}

function showApp(username) {
  loggedIn = true;
  $('login-screen').hidden = true;
  $('app').hidden = false;
  $('whoami').textContent = username || '';
  route();
}

function unmountCurrent() {
  if (current && typeof current.unmount === 'function') {
    try {
      current.unmount();
    } catch (e) {
      console.error(e);
    }
  }
  current = null;
}

function route() {
  if (!loggedIn) return;
  const { view, params, known } = parseHash();
  if (!known) flash(`Vue inconnue « ${location.hash} » : retour au pilotage.`, 'info');
  const focusedId = document.activeElement && document.activeElement.id;
  const sameView = current && current.view === view;
  unmountCurrent();
  for (const a of document.querySelectorAll('.mainnav a')) {
    if (a.dataset.view === view) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${TITLES[view]} — Band Map admin`;
  const main = $('main');
  clear(main);
  const root = h('div', { class: `view view-${view}` });
  main.append(root);
  const unmount = views[view].mount(root, params);
  current = { view, unmount };
  // Keep keyboard focus on the same control when a filter re-renders the view.
  if (sameView && focusedId) {
    const again = document.getElementById(focusedId);
    if (again) again.focus();
  } else if (!sameView) {
    main.focus({ preventScroll: true });
  }
}

async function onLogin(ev) {
  ev.preventDefault();
  const form = ev.currentTarget;
  const username = form.username.value.trim();
  const password = form.password.value;
  const err = $('login-error');
  err.hidden = true;
  if (!username || !password) {
    err.textContent = 'Identifiant et mot de passe requis.';
    err.hidden = false;
    return;
  }
  const btn = form.querySelector('button[type=submit]');
  btn.disabled = true;
  try {
    const res = await auth.login(username, password);
    form.password.value = '';
    showApp((res && res.username) || username);
  } catch (e) {
    let msg;
    if (e.status === 401) msg = e.message && e.code !== 'http_401' ? `Identifiants refusés : ${e.message}` : 'Identifiants refusés.';
    else if (e.status === 429) {
      msg = e.retryAfter !== null
        ? `Trop de tentatives : compte verrouillé, réessayez dans ${e.retryAfter} s.`
        : 'Trop de tentatives : compte verrouillé, réessayez plus tard.';
    } else msg = errorText(e);
    err.textContent = msg;
    err.hidden = false;
  } finally {
    btn.disabled = false;
  }
}

async function onLogout() {
  try {
    await auth.logout();
  } catch (e) {
    if (e.status !== 401) flash(`Déconnexion : ${errorText(e)}`, 'error');
  }
  showLogin('Vous êtes déconnecté.');
}

async function init() {
  setFlashBox($('flash'));
  $('login-form').addEventListener('submit', onLogin);
  $('logout-btn').addEventListener('click', onLogout);
  window.addEventListener('hashchange', route);
  installKeys(() => loggedIn);
  authEvents.addEventListener('unauthorized', () => {
    if (loggedIn) showLogin('Session expirée : reconnectez-vous.');
  });
  try {
    const me = await auth.me();
    showApp(me && me.username);
  } catch (e) {
    if (e.status === 401) showLogin();
    else showLogin(`Impossible de vérifier la session : ${errorText(e)}`);
  }
}

init();
