/* svc cloak.js: client-side bot signals, reported once to /api/cloak; follows the redirect the server
   answers for a bot. Catches unsophisticated automation only (docs/browser-scripts.md). Never throws. */
(function () {
  try {
    var w = window, d = document, n = navigator, svc = (w.svc = w.svc || {});
    if (svc._cloak) return;
    svc._cloak = true;
    var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    var me = d.currentScript;
    var attr = function (k) { return (me && me.getAttribute('data-' + k)) || ''; };
    var uuid = function (v) { return typeof v === 'string' && UUID.test(v) ? v.toLowerCase() : ''; };
    var origin = '';
    try { if (me && me.src) origin = new URL(me.src, location.href).origin; } catch (e) {}
    if (!origin || origin === 'null') origin = svc.endpoint || location.origin;
    var wait = parseInt(attr('wait-ms'), 10);
    if (!(wait >= 0 && wait <= 60000)) wait = 15000;

    var ua = n.userAgent || '';
    // Chrome's UA, minus in-app browsers and Android WebViews, which lack window.chrome by design.
    var chrome = /\bChrome\/\d/.test(ua) && !/; wv\)|FBAN|FBAV|Instagram|CriOS/.test(ua);
    var strong = [], weak = [];
    if (n.webdriver === true) strong.push('webdriver');
    if (/HeadlessChrome|PhantomJS|Puppeteer|Playwright/i.test(ua)) strong.push('headless');
    if (!n.languages || !n.languages.length) weak.push('no_languages');
    if (chrome && !/Mobile|Android/i.test(ua) && n.plugins && n.plugins.length === 0) weak.push('no_plugins');
    if (w.outerWidth === 0 || w.outerHeight === 0) weak.push('zero_window');
    if (chrome && typeof w.chrome === 'undefined') weak.push('no_chrome_object');
    if (!strong.length && !weak.length) return;

    // The pixel.js tag of a hosted page (read even before pixel.js, async, ran): its click, landing and token.
    var pxTag = function (k) {
      try { var px = d.querySelector('script[data-form-token]'); return (px && px.getAttribute('data-' + k)) || ''; } catch (e) { return ''; }
    };
    var ids = function () {
      var click = uuid(pxTag('click-id')), landing = '';
      if (!click) try { click = uuid(typeof svc.clickId === 'function' ? svc.clickId() : svc.clickId); } catch (e) {}
      if (!click) click = uuid(svc._px && svc._px.clickId) || uuid(attr('click-id'));
      if (!click) {
        try {
          var m = d.cookie.match(/(?:^|;\s*)_svc_click=([^;]*)/);
          click = uuid(m ? decodeURIComponent(m[1]) : '');
        } catch (e) {}
      }
      if (!click) try { click = uuid(new URL(location.href).searchParams.get('click_id')); } catch (e) {}
      landing = String(svc.landingId || (svc._px && svc._px.landingId) || attr('landing-id') || pxTag('landing-id') || '');
      // The page's signed token: the server flags the click only with the token of that click and landing.
      var token = String(svc.formToken || (svc._px && svc._px.formToken) || attr('form-token') || pxTag('form-token') || '');
      return { click: click, landing: /^\d+$/.test(landing) ? parseInt(landing, 10) : null, token: token };
    };

    var reported = false;
    var report = function (signals) {
      if (reported || !w.fetch) return;
      reported = true;
      var id = ids(), body = { signals: signals };
      if (id.click) body.click_id = id.click;
      if (id.landing !== null) body.landing_id = id.landing;
      if (id.token) body.token = id.token;
      svc.cloak = { signals: signals };
      fetch(origin + '/api/cloak', {
        method: 'POST', keepalive: true, body: JSON.stringify(body),
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      }).then(function (res) { return res.ok ? res.json() : null; }).then(function (a) {
        svc.cloak.answer = a;
        if (!a || a.bot !== true || !a.redirect_url) return;
        var to = new URL(String(a.redirect_url), origin);
        if (to.protocol === 'http:' || to.protocol === 'https:') location.replace(to.href);
      })['catch'](function () { /* ignore */ });
    };

    if (strong.length) {
      // Once the page is parsed: the pixel.js tag (after this script, before </body>) carries the token.
      var now = function () { try { report(strong.concat(weak)); } catch (e) {} };
      if (d.readyState === 'loading') d.addEventListener('DOMContentLoaded', now); else now();
      return;
    }

    // Only weak signals: give a person up to `wait` ms to touch the page; the server decides either way.
    var kinds = ['mousemove', 'touchstart', 'scroll', 'keydown', 'pointerdown'];
    var timer = 0;
    var opts = { capture: true, passive: true };
    var stop = function () {
      clearTimeout(timer);
      for (var i = 0; i < kinds.length; i++) w.removeEventListener(kinds[i], onInteraction, opts);
    };
    var onInteraction = function () {
      try { stop(); report(weak); } catch (e) {}
    };
    for (var i = 0; i < kinds.length; i++) w.addEventListener(kinds[i], onInteraction, opts);
    timer = setTimeout(function () {
      try { stop(); report(weak.concat(['no_interaction'])); } catch (e) {}
    }, wait);
  } catch (e) { /* never break the page */ }
})();
