/* svc storefront.js: keeps the visitor's click id in the store's cart, so the order that comes out of it
   carries it (note_attributes `_svc_click`) and its webhook is attributed. Install: one script tag in the
   theme (docs/commerce.md, "E-commerce webhooks"). Dependency-free; never throws into the page. */
(function () {
  try {
    var NAME = '_svc_click'
    var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
    var valid = function (v) { return typeof v === 'string' && UUID.test(v) ? v.toLowerCase() : null }
    var cookie = function (name) {
      var parts = document.cookie ? document.cookie.split(';') : []
      for (var i = 0; i < parts.length; i++) {
        var kv = parts[i].replace(/^\s+/, '')
        if (kv.indexOf(name + '=') === 0) {
          try { return decodeURIComponent(kv.slice(name.length + 1)) } catch (e) { return null }
        }
      }
      return null
    }
    var store = function (key, value) { try { if (value === undefined) return window.localStorage.getItem(key); window.localStorage.setItem(key, value) } catch (e) { return null } }
    var params = new URLSearchParams(window.location.search)
    var id = valid(params.get(NAME)) || valid(params.get('click_id')) || valid(cookie(NAME)) || valid(store(NAME))
    if (!id) return
    var secure = window.location.protocol === 'https:' ? '; Secure' : ''
    document.cookie = NAME + '=' + id + '; Path=/; Max-Age=2592000; SameSite=Lax' + secure
    store(NAME, id)
    // Once per click and cart: a new cart (after an order) gets the attribute again.
    var key = id + '|' + (cookie('cart') || '')
    var done = null
    try { done = window.sessionStorage.getItem('_svc_click_cart') } catch (e) { done = null }
    if (done === key || !window.fetch) return
    window.fetch('/cart/update.js', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ attributes: { _svc_click: id } })
    }).then(function (res) {
      if (res.ok) { try { window.sessionStorage.setItem('_svc_click_cart', id + '|' + (cookie('cart') || '')) } catch (e) { /* private mode */ } }
    }, function () { /* offline: the next page tries again */ })
  } catch (e) { /* never break the store */ }
})()
