/* Tonk Tally: the phone's outbox of hands recorded with no signal, in IndexedDB, and the
   one way they are sent. Loaded by the pages and by the service worker (sw.js), so no DOM.

   An entry is what the record form would have sent (its fields), with the key made on the
   phone when Save was pressed (the form's one-time token `once`): the server stores a hand
   once per key, so sending again after a lost reply, from two tabs or from the worker's
   Background Sync at the same time as the page, still makes one hand. Entries go in the
   order they were recorded (IndexedDB's own increasing id); one the server refuses is kept,
   marked "needs", with the server's reason, and the ones behind it still go.

   One the server stored is kept too, marked "sent" with the number the server gave it, until
   the phone holds a state of its session that includes that number (a page of the session
   seen since: counting.js drops it then): till then the phone still counts it, so that a
   hand sent in the background while the page shown is an older copy is counted once, never
   in neither (issue 40). */
(function (scope) {
  "use strict";

  var NAME = "tonk-tally", STORE = "outbox", db = null;

  function open() {
    if (db) return db;
    db = new Promise(function (resolve, reject) {
      var req = indexedDB.open(NAME, 1);
      req.onupgradeneeded = function () {
        req.result.createObjectStore(STORE, {keyPath: "id", autoIncrement: true});
      };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { db = null; reject(req.error); };
    });
    return db;
  }

  function tx(mode, work) {
    return open().then(function (conn) {
      return new Promise(function (resolve, reject) {
        var t = conn.transaction(STORE, mode), result;
        result = work(t.objectStore(STORE));
        t.oncomplete = function () { resolve(result && "result" in result ? result.result : result); };
        t.onerror = t.onabort = function () { reject(t.error); };
      });
    });
  }

  function all() { return tx("readonly", function (s) { return s.getAll(); }); }
  function put(entry) { return tx("readwrite", function (s) { return s.put(entry); }); }
  function remove(id) { return tx("readwrite", function (s) { return s["delete"](id); }); }

  /* A hand as the record form would send it: ``fields`` are [name, value] pairs (the
     form's, without its CSRF token), ``key`` its one-time token, made on the phone. */
  function add(entry) {
    entry.state = "waiting";
    entry.at = entry.at || new Date().toISOString();
    // Looked for and kept in one transaction: a second tap's Save (the same key) waits for
    // the first's and finds it (two reads before either write kept the hand twice).
    return open().then(function (conn) {
      return new Promise(function (resolve, reject) {
        var t = conn.transaction(STORE, "readwrite"), store = t.objectStore(STORE), id = null;
        store.getAll().onsuccess = function (e) {
          var same = e.target.result.filter(function (x) { return x.key === entry.key; })[0];
          if (same) { id = same.id; return; }  // (a Save that reached the worker and the page)
          store.put(entry).onsuccess = function (made) { id = made.target.result; };
        };
        t.oncomplete = function () { resolve(id); };
        t.onerror = t.onabort = function () { reject(t.error); };
      });
    });
  }

  function locked(work) {
    if (scope.navigator && navigator.locks && navigator.locks.request) {
      return navigator.locks.request("tonk-outbox", work);
    }
    return work();
  }

  function post(entry, csrf) {
    var body = new URLSearchParams();
    entry.fields.forEach(function (f) { body.append(f[0], f[1]); });
    body.set("once", entry.key);
    return fetch("/sessions/" + entry.session + "/hands/sent", {
      method: "POST", credentials: "same-origin", cache: "no-store", body: body,
      headers: {"X-CSRFToken": csrf, "Accept": "application/json"}});
  }

  /* Send every waiting hand of the signed-in account, oldest first. Resolves to
     {sent, sessions, needs, left, offline}: ``sessions`` the sessions whose hands went,
     ``offline`` when the network failed on the way (the rest is left for the next try, in
     order). */
  function sendAll() {
    return locked(function () {
      var report = {sent: 0, sessions: [], needs: 0, left: 0, offline: false};
      return all().then(function (entries) {
        var waiting = entries.filter(function (e) { return e.state === "waiting"; });
        if (!waiting.length) return report;
        return fetch("/outbox/token", {credentials: "same-origin", cache: "no-store"})
          .then(function (answer) {
            if (!answer.ok) { report.left = waiting.length; return null; }
            return answer.json();
          })
          .then(function (token) {
            if (!token) return report;
            var mine = waiting.filter(function (e) { return e.account === token.account; });
            report.left = waiting.length - mine.length;
            return mine.reduce(function (chain, entry) {
              return chain.then(function (stop) {
                if (stop) { report.left += 1; return true; }
                return post(entry, token.csrf).then(function (answer) {
                  if (answer.status >= 500 || answer.status === 429 || answer.status === 401 ||
                      !/json/.test(answer.headers.get("Content-Type") || "")) {
                    report.left += 1;  // busy, or a CSRF refusal: try again later, in order
                    return true;
                  }
                  return answer.json().then(function (said) {
                    if (answer.ok) {
                      report.sent += 1;
                      if (report.sessions.indexOf(entry.session) < 0) report.sessions.push(entry.session);
                      var number = said.number || numberIn(said.location);
                      if (!number) return remove(entry.id).then(function () { return false; });
                      entry.state = "sent";
                      entry.number = number;
                      return put(entry).then(function () { return false; });
                    }
                    entry.state = "needs";
                    entry.reason = said.error || String(answer.status);
                    entry.field = said.field || null;
                    entry.status = answer.status;
                    report.needs += 1;
                    return put(entry).then(function () { return false; });
                  });
                }, function () { report.offline = true; report.left += 1; return true; });
              });
            }, Promise.resolve(false)).then(function () { return report; });
          }, function () { report.offline = true; report.left = waiting.length; return report; });
      });
    });
  }

  // The hand's number in where the server says it went (a repeat's answer: /sessions/S/hands/N).
  function numberIn(location) {
    var match = /\/hands\/(\d+)/.exec(location || "");
    return match ? +match[1] : 0;
  }

  /* The entries of ``session`` and ``account`` a state of it numbered up to ``upTo`` (its
     last hand's number) does not include: the waiting ones, and the ones sent since that
     state, in the order they were recorded. What the phone counts on top of that state. */
  function pending(entries, session, account, upTo) {
    return entries.filter(function (e) {
      return e.session === session && e.account === account &&
        (e.state === "waiting" || (e.state === "sent" && e.number > upTo));
    });
  }

  /* The phone holds a state of ``session`` numbered up to ``upTo``: the hands sent that it
     includes are dropped (it counts them now). */
  function dropSent(session, upTo) {
    return all().then(function (entries) {
      return Promise.all(entries.filter(function (e) {
        return e.session === session && e.state === "sent" && e.number <= upTo;
      }).map(function (e) { return remove(e.id); }));
    });
  }

  function retry(id) {
    return all().then(function (entries) {
      var entry = entries.filter(function (e) { return e.id === id; })[0];
      if (!entry) return null;
      entry.state = "waiting";
      delete entry.reason;
      return put(entry);
    });
  }

  scope.TonkOutbox = {all: all, add: add, remove: remove, retry: retry, sendAll: sendAll,
                      pending: pending, dropSent: dropSent};
})(self);
