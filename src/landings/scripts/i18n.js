/* svc i18n.js: translates [data-i18n] text and [data-i18n-attr] attributes from the landing's own
   dictionaries (<script type="application/json" id="svc-i18n"> or window.svcI18n), in the visitor's
   language. See docs/browser-scripts.md. No dependencies; never throws into the page. */
(function () {
  try {
    var w = window, d = document, svc = (w.svc = w.svc || {});
    var own = Object.prototype.hasOwnProperty;
    var isObj = function (v) { return !!v && typeof v === 'object' && !(v instanceof Array); };

    var dictionaries = function () {
      var out = {}, k, sources = [];
      try {
        var el = d.getElementById('svc-i18n');
        if (el) sources.push(JSON.parse(el.textContent || '{}'));
      } catch (e) { /* a broken block translates nothing */ }
      if (isObj(w.svcI18n)) sources.push(w.svcI18n);
      for (var i = 0; i < sources.length; i++) {
        var s = sources[i];
        if (!isObj(s)) continue;
        for (k in s) {
          if (!own.call(s, k)) continue;
          if (k === 'default') { if (typeof s[k] === 'string') out['default'] = s[k]; continue; }
          if (!isObj(s[k])) continue;
          var dict = out[k] || (out[k] = {});
          for (var key in s[k]) if (own.call(s[k], key)) dict[key] = s[k][key];
        }
      }
      return out;
    };

    // Exact (case-insensitive) match, then the base language (de-AT → de), then any variant of it (pt → pt-BR).
    var resolve = function (dicts, wanted) {
      if (typeof wanted !== 'string' || !wanted) return null;
      var want = wanted.toLowerCase(), base = want.split('-')[0], k, variant = null;
      for (k in dicts) if (k !== 'default' && own.call(dicts, k) && k.toLowerCase() === want) return k;
      for (k in dicts) if (k !== 'default' && own.call(dicts, k) && k.toLowerCase() === base) return k;
      for (k in dicts) {
        if (k !== 'default' && own.call(dicts, k) && k.toLowerCase().split('-')[0] === base) { variant = k; break; }
      }
      return variant;
    };

    var choose = function (dicts) {
      var n = navigator, prefs = n.languages && n.languages.length ? n.languages : [n.language];
      for (var i = 0; i < prefs.length; i++) {
        var hit = resolve(dicts, prefs[i]);
        if (hit) return hit;
      }
      return resolve(dicts, dicts['default']);
    };

    var lookup = function (dict, key) {
      if (own.call(dict, key)) return dict[key];
      var parts = key.split('.'), v = dict;
      for (var i = 0; i < parts.length; i++) {
        if (!isObj(v) || !own.call(v, parts[i])) return undefined;
        v = v[parts[i]];
      }
      return v;
    };
    var text = function (v) { return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null; };

    // The authored text and attributes are kept, so re-applying another language restores missing keys.
    var authored = function (el) {
      if (!el._svcI18n) el._svcI18n = { text: el.textContent, attrs: {} };
      return el._svcI18n;
    };

    var apply = function (lang) {
      var dicts = dictionaries();
      var chosen = lang ? resolve(dicts, lang) : choose(dicts);
      if (!chosen) return null;
      var dict = dicts[chosen], els, i, v;
      els = d.querySelectorAll('[data-i18n]');
      for (i = 0; i < els.length; i++) {
        var keep = authored(els[i]);
        v = text(lookup(dict, els[i].getAttribute('data-i18n') || ''));
        var t = v === null ? keep.text : v;
        if (els[i].textContent !== t) els[i].textContent = t;
      }
      els = d.querySelectorAll('[data-i18n-attr]');
      for (i = 0; i < els.length; i++) {
        var el = els[i], saved = authored(el).attrs;
        var pairs = (el.getAttribute('data-i18n-attr') || '').split(',');
        for (var j = 0; j < pairs.length; j++) {
          var at = pairs[j].indexOf(':');
          if (at < 1) continue;
          var name = pairs[j].slice(0, at).trim(), key = pairs[j].slice(at + 1).trim();
          if (!name || !key || /^on/i.test(name)) continue;
          if (!own.call(saved, name)) saved[name] = el.getAttribute(name);
          v = text(lookup(dict, key));
          if (v !== null) el.setAttribute(name, v);
          else if (saved[name] === null) el.removeAttribute(name);
          else el.setAttribute(name, saved[name]);
        }
      }
      d.documentElement.lang = chosen;
      api.lang = chosen;
      return chosen;
    };

    var api = svc.i18n = {
      lang: null,
      apply: function (lang) { try { return apply(lang); } catch (e) { return null; } },
    };
    if (d.readyState === 'loading') d.addEventListener('DOMContentLoaded', function () { api.apply(); });
    else api.apply();
  } catch (e) { /* never break the page */ }
})();
