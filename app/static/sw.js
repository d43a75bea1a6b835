/* Tonk Tally's service worker (served at /sw.js: its scope is the whole site).

   Pages: from the network when there is one; the scorekeeper's session pages, record forms
   and hands, the share views and the home page are kept on the phone as they were last
   opened, and served from there with no signal, marked with the time they were kept (a
   session's record form with its page, before it is opened: keepAhead). A page never
   opened answers with the offline page, never the browser's error.
   Saving a hand with no signal: the record form's POST that fails for want of network is
   kept in the outbox (outbox.js) and the phone goes to the session page, where it shows as
   "not sent yet"; Background Sync sends the outbox where the browser has it.
   The core on the phone (/phone/: Pyodide, app/core, the catalogues; counting.js) is kept
   in its own cache: the files named by their content once fetched, for good; the bundle's
   list and the worker from the network when there is one, else as last fetched. A new
   bundle's list drops the files it no longer names. The core's worker keeps its modules
   compiled there too (/phone/compiled.zip, put by the worker itself: never fetched).
   A night started on the phone with no signal (night.js, nightstore.js) has one page for
   every night, /phone/nights/<uid>, kept as one; its events go to the server from the page
   itself (or the home page).
   Nothing else is kept: no API answer, no other form's POST. */
/* global TonkOutbox */
importScripts("/static/outbox.js");

var SHELL = "tonk-shell-v6", PAGES = "tonk-pages", CORE = "tonk-core-v1";
var ASSETS = ["/static/tonk.css", "/static/tonk.js", "/static/outbox.js",
              "/static/offline.js", "/static/counting.js", "/static/nightstore.js",
              "/static/night.js", "/static/vendor/qrcode-generator/qrcode.js",
              "/static/icons/icon-192.png",
              "/offline", "/manifest.webmanifest"];
var KEPT = [/^\/$/, /^\/sessions\/new$/, /^\/sessions\/\d+$/, /^\/sessions\/\d+\/hands\/(new|\d+)$/,
            /^\/sessions\/\d+\/(settle|seats)$/, /^\/rules\/[a-z_]+$/,
            /^\/sessions\/\d+\/(live|chart\.svg)$/, /^\/s\/[^/]+$/,
            /^\/s\/[^/]+\/(live|chart\.svg|hands\/\d+)$/, /^\/check$/];
var RECORD = /^\/sessions\/(\d+)\/hands\/new$/;
/* A night started on the phone (night.js): one page for every such night, kept as one. */
var NIGHT = /^\/phone\/nights\/[0-9A-Za-z_-]+$/, NIGHT_PAGE = "/phone/nights/-";

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(SHELL).then(function (cache) {
    return cache.addAll(ASSETS.map(function (u) { return new Request(u, {cache: "reload"}); }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) {
      return (n.indexOf("tonk-shell-") === 0 && n !== SHELL) ||
             (n.indexOf("tonk-core-") === 0 && n !== CORE);
    }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

function kept(path) {
  return KEPT.some(function (re) { return re.test(path); });
}

/* The pages kept are forgotten when the account signs out (offline.js asks, "forget-pages"):
   a page whose answer was still on its way then is not kept after it, so nothing of the
   account that left stays on the phone. */
var forgotten = 0;

self.addEventListener("message", function (event) {
  if (event.data && event.data.keep) {
    event.waitUntil(keepAhead(event.data.keep));
    return;
  }
  if (event.data !== "forget-pages") return;
  forgotten += 1;
  var port = event.ports && event.ports[0];
  event.waitUntil(caches.delete(PAGES).then(function () { if (port) port.postMessage(true); }));
});

/* Put a page in the kept pages, unless they were forgotten since ``at``. */
function putKept(at, url, response) {
  if (at !== forgotten) return Promise.resolve();
  return caches.open(PAGES).then(function (cache) {
    if (at === forgotten) return cache.put(url, response);
  });
}

/* Keep a page's answer (a page asked for when the pages had been forgotten ``at`` times). */
function keep(request, response, at) {
  if (!response.ok || response.redirected || response.type !== "basic") return response;
  keptCopy(request.url, response.clone(), at)
    .catch(function () { /* full: the page still shows */ });
  return response;
}

/* Keep a copy of a page's answer, marked with when, unless the pages were forgotten since
   ``at`` (putKept). */
function keptCopy(url, copy, at) {
  return copy.blob().then(function (body) {
    var headers = new Headers(copy.headers);
    headers.set("X-Tonk-Kept", new Date().toISOString());
    return putKept(at, url, new Response(body, {status: copy.status, headers: headers}));
  });
}

/* Pages kept before they are opened, as a page asks (offline.js): the page itself when it
   was shown before this worker served it (the phone's first page since the worker came),
   and a session's record form, so that a hand is saved with no signal on a phone that never
   opened it. Each is fetched once, unless it is kept already. */
function keepAhead(paths) {
  return caches.open(PAGES).then(function (cache) {
    return Promise.all(paths.filter(kept).map(function (path) {
      var url = new URL(path, self.location.href).href;
      return cache.match(url).then(function (hit) {
        if (hit) return null;
        var at = forgotten;  // (a sign-out while it is on its way: not kept)
        return fetch(url, {credentials: "same-origin"}).then(function (response) {
          if (!response.ok || response.redirected) return null;
          return keptCopy(url, response, at);
        });
      }).catch(function () { /* no signal, or full: kept when it is opened */ });
    }));
  });
}

/* A kept page, marked: the page's script shows "offline, as of HH:MM". */
function marked(hit) {
  var when = hit.headers.get("X-Tonk-Kept") || "";
  if (!/text\/html/.test(hit.headers.get("Content-Type") || "")) return hit;
  return hit.text().then(function (html) {
    return new Response(html.replace("<body", '<body data-offline-as-of="' + when + '"'),
                        {status: 200, headers: hit.headers});
  });
}

/* A night's page: the network's (kept as the one page of every night), else the one kept. */
function nightPage(request) {
  var shell = new URL(NIGHT_PAGE, self.location.href).href;
  return fetch(request).then(function (response) {
    if (response.ok && !response.redirected && response.type === "basic") {
      putKept(forgotten, shell, response.clone())
        .catch(function () { /* full: the page still shows */ });
    }
    return response;
  }, function () {
    return caches.open(PAGES).then(function (cache) { return cache.match(shell); })
      .then(function (hit) { return hit || offlinePage(); });
  });
}

function offlinePage() {
  return caches.match("/offline").then(function (hit) {
    return hit || new Response("Offline", {status: 503, headers: {"Content-Type": "text/plain"}});
  });
}

function page(request, path) {
  var at = forgotten;  // (a sign-out while it is on its way: not kept)
  return fetch(request).then(function (response) {
    return kept(path) ? keep(request, response, at) : response;
  }, function () {
    return caches.open(PAGES).then(function (cache) { return cache.match(request.url); })
      .then(function (hit) { return hit ? marked(hit) : offlinePage(); });
  });
}

/* A static file named by what is in it (?v=, app/http/assets.py): the copy kept, which
   never changes, else the network's (kept in place of the file's older copies), else, with
   no signal, whichever copy of the file the phone has. */
function asset(request) {
  return caches.open(SHELL).then(function (cache) {
    return cache.match(request).then(function (hit) {
      return hit || fetch(request).then(function (response) {
        if (response.ok) replace(cache, request, response.clone());
        return response;
      }, function (error) {
        return cache.match(request, {ignoreSearch: true}).then(function (old) {
          if (!old) throw error;
          return old;
        });
      });
    });
  });
}

function replace(cache, request, response) {
  var path = new URL(request.url).pathname;
  return cache.keys().then(function (requests) {
    return Promise.all(requests.filter(function (r) {
      return new URL(r.url).pathname === path;
    }).map(function (r) { return cache.delete(r); }));
  }).then(function () { return cache.put(request, response); });
}

/* A static file asked for by a bare address: the copy kept at once, fetched again behind. */
function revalidated(request) {
  return caches.open(SHELL).then(function (cache) {
    return cache.match(request, {ignoreSearch: true}).then(function (hit) {
      var fresh = fetch(request).then(function (response) {
        if (response.ok) cache.put(request, response.clone());
        return response;
      });
      if (hit) { fresh.catch(function () {}); return hit; }
      return fresh;
    });
  });
}

/* The core on the phone: a file named by its content from the cache, else the network's,
   kept; the bundle's list and the worker from the network, kept, else the copy kept. */
function core(request, path) {
  return caches.open(CORE).then(function (cache) {
    if (/^\/phone\/(pyodide|core)\//.test(path)) {
      return cache.match(request).then(function (hit) {
        return hit || fetch(request).then(function (response) {
          if (response.ok) cache.put(request, response.clone()).catch(function () {});
          return response;
        });
      });
    }
    return fetch(request).then(function (response) {
      if (response.ok) {
        cache.put(request, response.clone()).catch(function () {});
        if (path === "/phone/core.json") response.clone().json().then(function (bundle) {
          prune(cache, bundle);
        }).catch(function () {});
      }
      return response;
    }, function (error) {
      return cache.match(request).then(function (hit) {
        if (!hit) throw error;
        return hit;
      });
    });
  });
}

function prune(cache, bundle) {
  var named = {};
  bundle.cache.concat(Object.keys(bundle.files).map(function (k) { return bundle.files[k]; }))
    .forEach(function (u) { named[new URL(u, self.location.href).pathname] = true; });
  return cache.keys().then(function (requests) {
    return Promise.all(requests.filter(function (r) {
      var path = new URL(r.url).pathname;
      return /^\/phone\/(pyodide|core)\//.test(path) && !named[path];
    }).map(function (r) { return cache.delete(r); }));
  });
}

/* The dispute checker (/check, kept like the pages above) whose form is sent with no
   signal: the checker as the phone kept it, whose script checks the hand on the phone
   (check-offline.js). */
function checkAgain() {
  return caches.open(PAGES).then(function (cache) {
    return cache.match(new URL("/check", self.location.href).href);
  }).then(function (hit) { return hit ? marked(hit) : offlinePage(); });
}

/* A hand saved on a form whose POST fails for want of network: kept in the outbox. */
function record(event, sessionId) {
  var copy = event.request.clone();
  return fetch(event.request).catch(function () {
    return copy.formData().then(function (form) {
      var fields = [], entry = {session: +sessionId};
      form.forEach(function (value, name) {
        if (name === "outbox_summary") entry.summary = value;
        else if (name === "outbox_account") entry.account = +value;
        else if (name === "once") entry.key = value;
        else if (name !== "csrf_token") fields.push([name, value]);
      });
      entry.fields = fields;
      if (!entry.key) throw new Error("no key");
      return TonkOutbox.add(entry);
    }).then(function () {
      if (self.registration.sync) self.registration.sync.register("tonk-outbox").catch(function () {});
      return Response.redirect("/sessions/" + sessionId, 303);
    }, function () { return offlinePage(); });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request, url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && request.mode === "navigate") {
    var match = RECORD.exec(url.pathname);
    event.respondWith(match ? record(event, match[1])
                            : fetch(request).catch(url.pathname === "/check" ? checkAgain : offlinePage));
    return;
  }
  if (request.method !== "GET") return;
  if (NIGHT.test(url.pathname)) {
    event.respondWith(nightPage(request));
  } else if (request.mode === "navigate") {
    event.respondWith(page(request, url.pathname));
  } else if (url.pathname.indexOf("/phone/") === 0) {
    event.respondWith(core(request, url.pathname));
  } else if (url.pathname.indexOf("/static/") === 0) {
    event.respondWith(url.searchParams.has("v") ? asset(request) : revalidated(request));
  } else if (kept(url.pathname)) {  // a session's live part and chart
    var at = forgotten;
    event.respondWith(fetch(request).then(function (response) {
      return keep(request, response, at);
    }, function () {
      return caches.open(PAGES).then(function (cache) { return cache.match(request.url); })
        .then(function (hit) { return hit || Response.error(); });
    }));
  }
});

/* Send the outbox, and tell the pages open what went. */
function send() {
  return TonkOutbox.sendAll().then(function (report) {
    return self.clients.matchAll({type: "window"}).then(function (pages) {
      pages.forEach(function (p) { p.postMessage({outbox: report}); });
      return report;
    });
  });
}

/* Background Sync: a page of the site that is open sends (and shows what went); with none
   open, the worker sends itself. */
self.addEventListener("sync", function (event) {
  if (event.tag !== "tonk-outbox") return;
  event.waitUntil(self.clients.matchAll({type: "window"}).then(function (pages) {
    if (!pages.length) return send();
    pages.forEach(function (p) { p.postMessage({send: true}); });
    return null;
  }));
});
