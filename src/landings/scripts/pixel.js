/* svc pixel.js: one page view per page load, window.svc for the other scripts, lead-form fields.
   See docs/browser-scripts.md. No dependencies; never throws into the page. */
(function () {
  try {
    var w = window, d = document, svc = (w.svc = w.svc || {});
    var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    var KEY = '_svc_click';
    var me = d.currentScript;
    if (!me) {
      var all = d.getElementsByTagName('script');
      for (var i = all.length - 1; i >= 0; i--) if (/\/pixel\.js([?#]|$)/.test(all[i].src)) { me = all[i]; break; }
    }
    var attr = function (n) { return (me && me.getAttribute('data-' + n)) || ''; };
    var uuid = function (v) { return typeof v === 'string' && UUID.test(v) ? v.toLowerCase() : ''; };
    var origin = '';
    try { origin = new URL(me.src, location.href).origin; } catch (e) { /* inline or unknown */ }
    if (!origin || origin === 'null') origin = location.origin;

    var fromUrl = '', fromCookie = '', fromStorage = '';
    try { fromUrl = uuid(new URL(location.href).searchParams.get('click_id')); } catch (e) {}
    try {
      var m = d.cookie.match(/(?:^|;\s*)_svc_click=([^;]*)/);
      fromCookie = uuid(m ? decodeURIComponent(m[1]) : '');
    } catch (e) {}
    try { fromStorage = uuid(w.localStorage.getItem(KEY)); } catch (e) {}
    // The server's click id first; else one this site already remembers (see client.js).
    var clickId = uuid(attr('click-id')) || fromUrl || fromCookie || fromStorage;
    var landingId = attr('landing-id'), campaignId = attr('campaign-id'), formToken = attr('form-token');

    if (clickId) {
      try {
        d.cookie = KEY + '=' + clickId + '; path=/; max-age=2592000; SameSite=Lax' + (location.protocol === 'https:' ? '; Secure' : '');
      } catch (e) {}
      try { w.localStorage.setItem(KEY, clickId); } catch (e) {}
    }

    svc._px = { clickId: clickId, landingId: landingId, campaignId: campaignId, formToken: formToken, endpoint: origin };
    // client.js makes svc.clickId a function; leave it, and never replace a known id with an empty one.
    if (typeof svc.clickId !== 'function' && (clickId || !svc.clickId)) svc.clickId = clickId;
    if (landingId || !svc.landingId) svc.landingId = landingId;
    if (campaignId || !svc.campaignId) svc.campaignId = campaignId;
    if (formToken || !svc.formToken) svc.formToken = formToken;
    if (!svc.endpoint) svc.endpoint = origin;

    var landingNumber = /^\d+$/.test(landingId) ? parseInt(landingId, 10) : null;

    // One page view per page load, even if the tag is on the page twice.
    if (!svc._pageView) {
      svc._pageView = true;
      var ev = { name: 'page_view', url: location.href, props: {} };
      if (clickId) ev.click_id = clickId;
      if (landingNumber !== null) ev.landing_id = landingNumber;
      // The page's signed token: without it the server does not attach the view to the click.
      if (formToken) ev.token = formToken;
      var sent = false;
      try {
        if (navigator.sendBeacon) sent = navigator.sendBeacon(origin + '/api/events', JSON.stringify(ev));
      } catch (e) { sent = false; }
      if (!sent) {
        var q = 'name=page_view' + (clickId ? '&click_id=' + clickId : '') +
          (landingNumber !== null ? '&landing_id=' + landingNumber : '') + '&url=' + encodeURIComponent(location.href) +
          (formToken ? '&token=' + encodeURIComponent(formToken) : '');
        new Image().src = origin + '/api/events?' + q;
      }
    }

    var isLeadForm = function (f) {
      if (f.hasAttribute('data-svc-lead')) return true;
      var a = f.getAttribute('action');
      return !!a && /\/api\/lead$/.test(a.split(/[?#]/)[0]);
    };
    var field = function (f, name) {
      var els = f.elements, el = els && els.namedItem ? els.namedItem(name) : null;
      return el && el.length !== undefined && !el.tagName ? el[0] : el;
    };
    var hidden = function (f, name, value) {
      var el = field(f, name);
      if (el) { if (!el.value && value) el.value = value; return; }
      el = d.createElement('input');
      el.type = 'hidden'; el.name = name; el.value = value;
      f.appendChild(el);
    };
    var decorate = function (root) {
      var forms = (root || d).getElementsByTagName('form');
      for (var i = 0; i < forms.length; i++) {
        var f = forms[i];
        if (!isLeadForm(f)) continue;
        if (formToken) hidden(f, '_svc_t', formToken);
        if (clickId) hidden(f, 'click_id', clickId);
        if (landingId) hidden(f, 'landing_id', landingId);
        if (!field(f, '_svc_hp')) {
          // A honeypot people never see or reach; bots that fill every field fill it.
          var hp = d.createElement('input');
          hp.type = 'text'; hp.name = '_svc_hp'; hp.value = '';
          hp.tabIndex = -1;
          hp.setAttribute('autocomplete', 'off');
          hp.setAttribute('aria-hidden', 'true');
          hp.style.cssText = 'position:absolute!important;left:-10000px!important;top:auto!important;width:1px!important;height:1px!important;overflow:hidden!important;opacity:0!important';
          f.appendChild(hp);
        }
      }
    };
    svc.decorateForms = function (root) { try { decorate(root); } catch (e) {} };
    svc.decorateForms();
    if (d.readyState === 'loading') d.addEventListener('DOMContentLoaded', function () { svc.decorateForms(); });
  } catch (e) { /* never break the page */ }
})();
