// Classic (non-module) script, loaded before the map's modules. A module whose import
// fails (e.g. /vendor/leaflet/… answering 404 when the binary was built before
// scripts/setup-web.sh) cannot report it itself: this script listens for failed page
// files and uncaught errors and writes what went wrong into #page-error.
// (If even this file is missing, map.css shows #boot-fallback after a few seconds.)
(function () {
  'use strict';
  var CRITICAL = ['/vendor/leaflet/leaflet-src.esm.js', '/vendor/topojson-client/index.js', '/map/map.js'];
  var shown = {};

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
        .catch(function () { return url + ' (injoignable)'; });
    });
    Promise.all(checks).then(function (found) {
      var missing = found.filter(Boolean);
      if (missing.length) {
        say('La carte ne peut pas démarrer : fichier absent du serveur — ' + missing.join(', ')
          + '. Si vous administrez ce serveur : lancez scripts/setup-web.sh puis recompilez bandmap.');
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
      findMissing('La carte ne peut pas démarrer : ' + url + ' n’a pas pu être chargé.');
      return;
    }
    if (e.message) say('Erreur dans la page : ' + e.message);
  }, true);

  window.addEventListener('unhandledrejection', function (e) {
    var r = e.reason;
    if (r && r.name === 'AbortError') return;
    say('Erreur dans la page : ' + (r && r.message ? r.message : String(r)));
  });
})();
