/* The nights started on the phone with no signal (issue 41), as the phone keeps them, and
   their sending: one script for the pages that use them (night.js: the new-session form, the
   home page's list, the night's own page), window.TonkNights.

   - The store: IndexedDB "tonk-nights", one record a night by its uid: its events (the
     core's, app/core/night.py, each with the id made for it here and its place seq), how
     many the server holds (sent), the account it belongs to, the server's session and page
     once it holds it, a problem to say, and the phone's totals as last counted.
   - sendNight(night): with a signal, the events the server does not hold yet, in order,
     each under its id (POST /phone/nights/<uid>/events, the API's night door for a phone
     signed in by cookie): a send cut halfway is sent again from where the server says it
     stopped (its "held"), and the server stores each event once. What it answers is kept
     with the night; nothing is dropped: a refusal is kept with the server's reason. */
(function () {
  "use strict";
  if (!window.indexedDB || !window.Promise || !window.TonkPage) return;
  var NAME = "tonk-nights", STORE = "nights";
  function offline() { return !navigator.onLine; }

  // -- the phone's store ----------------------------------------------------------------------
  var opened = null;
  function store() {
    if (opened) return opened;
    opened = new Promise(function (resolve, reject) {
      var req = indexedDB.open(NAME, 1);
      req.onupgradeneeded = function () { req.result.createObjectStore(STORE, {keyPath: "uid"}); };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
    });
    return opened;
  }
  function run(mode, work) {
    return store().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, mode), result;
        tx.oncomplete = function () { resolve(result); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
        work(tx.objectStore(STORE), function (r) { result = r; });
      });
    });
  }
  function get(uid) {
    return run("readonly", function (s, done) {
      var req = s.get(uid);
      req.onsuccess = function () { done(req.result || null); };
    });
  }
  function put(night) { return run("readwrite", function (s) { s.put(night); }); }
  function all() {
    return run("readonly", function (s, done) {
      var req = s.getAll();
      req.onsuccess = function () { done(req.result || []); };
    });
  }
  function hex() {
    var b = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
  }
  // A share token as the server makes its own: 16 random bytes, base64url (22 characters).
  // A night's started event carries it, so that its share view's QR can be shown before the
  // server holds the night (the server takes it, or refuses it by its field).
  function shareToken() {
    var b = crypto.getRandomValues(new Uint8Array(16)), s = "";
    for (var i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function waitingOf(night) { return night.events.length - night.sent; }
  function keepForGood() {
    if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(function () {});
  }


  // -- sending a night, when there is a signal: the night's page and the home page ------------
  // The phone sends the events the server does not hold yet, in order, each under its id
  // (POST /phone/nights/<uid>/events): a send cut halfway is sent again from where the server
  // says it stopped (its "held"), and the server stores each event once. What the server
  // answers is kept with the night (how much it holds, its session's page, a refusal, and
  // whether its totals differ from the phone's: by the same fold they cannot).
  var sayOut = window.TonkPage.words("night-send-words"), sendingNow = {};
  // The kept night's sending fields changed, and only those (what another tab added stays).
  function keepSent(night) {
    return run("readwrite", function (s) {
      var req = s.get(night.uid);
      req.onsuccess = function () {
        var kept = req.result;
        if (!kept) return;
        ["sent", "session", "page", "problem", "differs"].forEach(function (k) { kept[k] = night[k]; });
        s.put(kept);
      };
    });
  }
  function post(night, csrf) {
    var events = night.events.slice(night.sent, night.sent + 1000);
    return fetch("/phone/nights/" + night.uid + "/events", {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
      body: JSON.stringify({events: events})
    }).then(function (answer) {
      return answer.json().then(function (said) { return {status: answer.status, said: said}; });
    });
  }
  function plain(amount) {
    var text = String(amount).replace(/^(-?\d+)\.(\d*?)0*$/, function (m, whole, frac) {
      return frac ? whole + "." + frac : whole;
    });
    return text === "-0" ? "0" : text;
  }
  // Whether the server's totals differ from the phone's (``totals``: each player's, as the
  // phone last counted the night's events; a night kept before they were kept has none).
  function differs(money, totals) {
    return Object.keys(totals || {}).some(function (n) {
      return !money[n] || plain(money[n].total) !== plain(totals[n]);
    });
  }
  function sendOnce(night) {
    if (!waitingOf(night) || offline()) return Promise.resolve(night);
    return fetch("/outbox/token", {credentials: "same-origin", cache: "no-store"})
      .then(function (answer) {
        if (answer.status === 401) night.problem = sayOut("sign-in");  // signed out meanwhile
        return answer.ok ? answer.json() : null;
      })
      .then(function (token) {
        if (!token || token.account !== night.account) {
          if (token) night.problem = sayOut("sign-in");  // another account signed in here
          return keepSent(night);
        }
        var tries = 0;
        function step() {
          return post(night, token.csrf).then(function (got) {
            var said = got.said;
            if (typeof said.held === "number") night.sent = Math.min(said.held, night.events.length);
            if (said.session) { night.session = said.session; night.page = said.page; }
            if (said.money && night.sent === night.events.length) night.differs = differs(said.money, night.totals);
            night.problem = got.status >= 400 && got.status !== 409
              ? sayOut("refused", {why: said.error}) : night.differs ? sayOut("differs") : null;
            return keepSent(night).then(function () {
              if (got.status === 409 && tries++ < 3) return step();  // from where the server is
              if (got.status < 300 && waitingOf(night)) return step();  // the next thousand
              return null;
            });
          });
        }
        return step();
      })
      .then(function () { return night; });
  }
  // ``night`` (the phone's copy, changed as the server answers) sent once at a time by a
  // page; rejects when no answer came (sent again later).
  function sendNight(night) {
    if (!sendingNow[night.uid]) {
      var over = function () { delete sendingNow[night.uid]; };
      sendingNow[night.uid] = sendOnce(night);
      sendingNow[night.uid].then(over, over);
    }
    return sendingNow[night.uid];
  }

  window.TonkNights = {get: get, put: put, all: all, hex: hex, shareToken: shareToken,
                       waitingOf: waitingOf,
                       keepForGood: keepForGood, sendNight: sendNight, words: sayOut};
})();
