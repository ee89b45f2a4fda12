/* svc client.js: window.svc.track / clickId / submitLead, click id persistence, lead forms.
   See docs/browser-scripts.md. No dependencies; never throws into the page. */
(function () {
  try {
    var w = window, d = document, svc = (w.svc = w.svc || {});
    if (svc._client) return;
    svc._client = true;
    var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    var KEY = '_svc_click', OOPS = 'Something went wrong. Please try again.';
    var me = d.currentScript;
    // This tag's data-*, else the hosted page's pixel.js tag's (whose token names its click).
    var attr = function (n) {
      var px = d.querySelector('script[data-form-token]');
      return (me && me.getAttribute('data-' + n)) || (px && px.getAttribute('data-' + n)) || '';
    };
    var uuid = function (v) { return typeof v === 'string' && UUID.test(v) ? v.toLowerCase() : ''; };
    var own = '';
    try { if (me && me.src) own = new URL(me.src, location.href).origin; } catch (e) {}
    // A click id pixel.js published before this script ran (a string), or one on this script's tag.
    var published = uuid(typeof svc.clickId === 'string' ? svc.clickId : '') || uuid(attr('click-id'));

    var endpoint = function () {
      return own || svc.endpoint || (svc._px && svc._px.endpoint) || location.origin;
    };
    var landingId = function () {
      return String(svc.landingId || (svc._px && svc._px.landingId) || attr('landing-id') || '');
    };
    var formToken = function () {
      return String(svc.formToken || (svc._px && svc._px.formToken) || attr('form-token') || '');
    };
    var readCookie = function () {
      try {
        var m = d.cookie.match(/(?:^|;\s*)_svc_click=([^;]*)/);
        return uuid(m ? decodeURIComponent(m[1]) : '');
      } catch (e) { return ''; }
    };
    var remembered = '';
    var persist = function (id) {
      if (!id || id === remembered) return;
      remembered = id;
      try {
        d.cookie = KEY + '=' + id + '; path=/; max-age=2592000; SameSite=Lax' + (location.protocol === 'https:' ? '; Secure' : '');
      } catch (e) {}
      try { w.localStorage.setItem(KEY, id); } catch (e) {}
    };
    // URL, cookie, localStorage, then pixel.js (a sandboxed /lp page: cookie and storage throw, all guarded).
    var clickId = function () {
      var id = '';
      try { id = uuid(new URL(location.href).searchParams.get('click_id')); } catch (e) {}
      if (!id) id = readCookie();
      if (!id) try { id = uuid(w.localStorage.getItem(KEY)); } catch (e) {}
      if (!id) id = uuid(svc._px && svc._px.clickId) || published;
      persist(id);
      return id;
    };
    svc.clickId = function () { try { return clickId(); } catch (e) { return ''; } };

    var send = function (name, props) {
      var id = uuid(attr('click-id')) || clickId(), lid = landingId(), base = endpoint(), tok = formToken();
      var lnum = /^\d+$/.test(lid) ? parseInt(lid, 10) : null;
      var ev = { name: name, url: location.href, props: props || {} };
      if (id) ev.click_id = id;
      if (lnum !== null) ev.landing_id = lnum;
      if (tok) ev.token = tok;
      var ok = false;
      try { if (navigator.sendBeacon) ok = navigator.sendBeacon(base + '/api/events', JSON.stringify(ev)); } catch (e) { ok = false; }
      if (!ok) {
        var q = 'name=' + encodeURIComponent(name) + (id ? '&click_id=' + id : '') +
          (lnum !== null ? '&landing_id=' + lnum : '') + '&url=' + encodeURIComponent(location.href) +
          (tok ? '&token=' + encodeURIComponent(tok) : '');
        var pj = JSON.stringify(props || {});
        if (pj !== '{}') q += '&props=' + encodeURIComponent(pj);
        new Image().src = base + '/api/events?' + q;
      }
      return true;
    };
    svc.track = function (name, props) {
      try {
        if (typeof name !== 'string' || !name) return false;
        return send(name, props && typeof props === 'object' ? props : {});
      } catch (e) { return false; }
    };

    var leadPath = function (a) { return !!a && /\/api\/lead$/.test(a.split(/[?#]/)[0]); };
    var isLeadForm = function (f) { return f.hasAttribute('data-svc-lead') || leadPath(f.getAttribute('action')); };
    var buttons = function (f, off) {
      var els = f.querySelectorAll('button, input[type=submit], input[type=image]');
      for (var i = 0; i < els.length; i++) {
        if (off) { if (!els[i].disabled) { els[i].disabled = true; els[i].setAttribute('data-svc-busy', ''); } }
        else if (els[i].hasAttribute('data-svc-busy')) { els[i].disabled = false; els[i].removeAttribute('data-svc-busy'); }
      }
    };
    var idle = function (f) {
      f._svcBusy = false;
      buttons(f, false);
      f.removeAttribute('aria-busy');
    };
    var fail = function (f, status, message) {
      idle(f);
      var box = f.querySelector('[data-svc-error]');
      if (box) box.textContent = message;
      f.dispatchEvent(new CustomEvent('svc:lead-error', { bubbles: true, detail: { status: status, error: message } }));
    };

    svc.submitLead = function (f) {
      try {
        if (!f || f._svcBusy) return Promise.resolve(false);
        f._svcBusy = true;
        var params = new URLSearchParams();
        new FormData(f).forEach(function (v, k) { if (typeof v === 'string') params.append(k, v); });
        var fill = function (k, v) { if (v && !params.get(k)) params.set(k, v); };
        fill('click_id', clickId());
        fill('landing_id', landingId());
        fill('_svc_t', formToken());
        if (!params.has('_svc_hp')) params.set('_svc_hp', '');
        var base = endpoint(), action = f.getAttribute('action');
        var url = leadPath(action) ? new URL(action, location.href).href : base + '/api/lead';
        buttons(f, true);
        f.setAttribute('aria-busy', 'true');
        return fetch(url, { method: 'POST', body: params, headers: { accept: 'application/json' } }).then(function (res) {
          return res.text().then(function (text) {
            var data = null;
            try { data = JSON.parse(text); } catch (e) { data = null; }
            if (res.ok && data && data.ok) {
              if (data.redirect_url) {
                var to = new URL(String(data.redirect_url), url); // relative to the endpoint that answered
                if (to.protocol === 'http:' || to.protocol === 'https:') { location.href = to.href; return data; }
              }
              idle(f);
              f.dispatchEvent(new CustomEvent('svc:lead-success', { bubbles: true, detail: data }));
              return data;
            }
            fail(f, res.status, (data && typeof data.error === 'string' && data.error) || OOPS);
            return data || false;
          });
        }, function () {
          fail(f, 0, 'Network error. Please try again.');
          return false;
        });
      } catch (e) {
        try { fail(f, 0, OOPS); } catch (e2) {}
        return Promise.resolve(false);
      }
    };

    var bind = function (f) {
      if (f._svcBound || !isLeadForm(f)) return;
      f._svcBound = true;
      f.addEventListener('submit', function (e) {
        // Without fetch the browser's own submit goes ahead (the endpoint accepts form posts).
        if (e.defaultPrevented || !w.fetch || !w.URLSearchParams || !w.FormData) return;
        e.preventDefault();
        svc.submitLead(f);
      });
    };
    svc.bindForms = function (root) {
      try {
        var forms = (root || d).getElementsByTagName('form');
        for (var i = 0; i < forms.length; i++) bind(forms[i]);
      } catch (e) {}
    };

    // Back from the thank-you page (back/forward cache): the form may be sent again.
    w.addEventListener('pageshow', function (e) {
      if (!e.persisted) return;
      try {
        var forms = d.getElementsByTagName('form');
        for (var i = 0; i < forms.length; i++) if (forms[i]._svcBusy) idle(forms[i]);
      } catch (x) {}
    });

    clickId();
    svc.bindForms();
    if (d.readyState === 'loading') d.addEventListener('DOMContentLoaded', function () { svc.bindForms(); });
  } catch (e) { /* never break the page */ }
})();
