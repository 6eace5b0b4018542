// Classic (non-module) script, loaded before the map's modules. A module whose import
// fails (e.g. /vendor/leaflet/… answering 404 when the binary was built before
// scripts/setup-web.sh) cannot report it itself: this script listens for failed page
// files and uncaught errors and writes what went wrong into #page-error.
// (If even this file is missing, map.css shows #boot-fallback after a few seconds.)
(function () {
  'use strict';
  var CRITICAL = ['/vendor/leaflet/leaflet-src.esm.js', '/vendor/topojson-client/index.js', '/map/map.js'];
  var shown = {};
  // This script reports that the page's files (the catalogues of web/map/i18n among them)
  // did not load, so its few sentences are here, in both languages, chosen as i18n.js does.
  var WORDS = {
    fr: {
      unreachable: ' (injoignable)',
      missing: 'La carte ne peut pas démarrer : fichier absent du serveur — ',
      admin: '. Si vous administrez ce serveur : lancez scripts/setup-web.sh puis recompilez bandmap.',
      failed: 'La carte ne peut pas démarrer : {url} n’a pas pu être chargé.',
      error: 'Erreur dans la page : '
    },
    en: {
      unreachable: ' (unreachable)',
      missing: 'The map cannot start: a file is missing on the server — ',
      admin: '. If you run this server: run scripts/setup-web.sh, then rebuild bandmap.',
      failed: 'The map cannot start: {url} could not be loaded.',
      error: 'Error in the page: '
    }
  };
  function pickLang() {
    var m = /[?&]lang=(fr|en)\b/i.exec(location.search);
    if (m) return m[1].toLowerCase();
    var langs = navigator.languages || [navigator.language || ''];
    for (var i = 0; i < langs.length; i++) {
      var p = String(langs[i]).split('-')[0].toLowerCase();
      if (p === 'fr' || p === 'en') return p;
    }
    return 'fr';
  }
  var W = WORDS[pickLang()];

  function say(text) {
    if (shown[text]) return;
    shown[text] = true;
    var box = document.getElementById('page-error');
    if (!box) {
      document.addEventListener('DOMContentLoaded', function () { shown[text] = false; say(text); });
      return;
    }
    var p = document.createElement('p');
    p.textContent = text;
    box.appendChild(p);
    box.hidden = false;
  }

  function findMissing(fallback) {
    var checks = CRITICAL.map(function (url) {
      return fetch(url, { method: 'HEAD', cache: 'no-store' })
        .then(function (r) { return r.ok ? null : url + ' (HTTP ' + r.status + ')'; })
        .catch(function () { return url + W.unreachable; });
    });
    Promise.all(checks).then(function (found) {
      var missing = found.filter(Boolean);
      if (missing.length) {
        say(W.missing + missing.join(', ') + W.admin);
      } else {
        say(fallback);
      }
    });
  }

  window.addEventListener('error', function (e) {
    var el = e.target;
    if (el && el !== window && (el.src || el.href)) {
      var url = el.src || el.href;
      // Tiles are optional (offline, blocked): the outline map stands in for them.
      if (el.tagName === 'IMG' && /leaflet-tile/.test(el.className)) return;
      findMissing(W.failed.replace('{url}', url));
      return;
    }
    if (e.message) say(W.error + e.message);
  }, true);

  window.addEventListener('unhandledrejection', function (e) {
    var r = e.reason;
    if (r && r.name === 'AbortError') return;
    say(W.error + (r && r.message ? r.message : String(r)));
  });
})();
