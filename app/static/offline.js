/* Tonk Tally with no signal, on the page's side (the service worker is sw.js, the outbox
   outbox.js): register the worker, ask to keep storage, say when a page is shown from the
   phone ("offline, as of HH:MM"), keep a hand saved with no signal in the outbox, show the
   waiting hands on the session page with Send now, send them when the signal is back, and
   say plainly that the other changes need a connection. Words come from #offline-words. */
/* global TonkOutbox */
(function () {
  "use strict";
  var words = document.getElementById("offline-words");
  if (!words || !window.TonkOutbox || !window.indexedDB) return;
  var body = document.body, account = +(body.getAttribute("data-account") || 0);

  var say = window.TonkPage.words("offline-words"), el = window.TonkPage.el;  // (tonk.js)
  function hhmm(iso) {
    var d = iso ? new Date(iso) : new Date();
    return d.toLocaleTimeString(document.documentElement.lang || [], {timeStyle: "short"});
  }
  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
  }

  // -- the worker, and storage the browser should not clear ----------------------------------
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", {scope: "/"}).catch(function () {});
    // Kept before it is opened (sw.js): this page, if no worker served it (the first since
    // the worker came), and a session's record form, for a hand saved with no signal.
    var servedBy = navigator.serviceWorker.controller;
    var keepAhead = function () {
      var worker = navigator.serviceWorker.controller, paths = [];
      if (!worker || !navigator.onLine || body.getAttribute("data-offline-as-of")) return;
      if (!servedBy) paths.push(location.pathname);
      var form = /^\/sessions\/\d+$/.test(location.pathname) &&
        document.querySelector('a[href="' + location.pathname + '/hands/new"]');
      if (form) paths.push(location.pathname + "/hands/new");
      if (paths.length) worker.postMessage({keep: paths});
    };
    if (servedBy) keepAhead();
    else navigator.serviceWorker.addEventListener("controllerchange", keepAhead, {once: true});
  }
  // A different account on this phone than the pages kept: they are not this one's to show.
  try {
    var keptFor = localStorage.getItem("tonk-account");
    if (account && keptFor && +keptFor !== account) {
      forgetPages();
      forgetTables();
    }
    if (account) localStorage.setItem("tonk-account", String(account));
  } catch (e) { /* no storage: nothing kept either */ }

  // The pages the phone kept, forgotten by the service worker (which then keeps none whose
  // answer was on its way: sw.js) and here; done when both have, or after two seconds.
  function forgetPages() {
    if (!window.caches) return Promise.resolve();
    var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    var told = !worker ? Promise.resolve() : new Promise(function (done) {
      var channel = new MessageChannel();
      channel.port1.onmessage = function () { done(); };
      worker.postMessage("forget-pages", [channel.port2]);
      setTimeout(done, 2000);
    });
    return told.then(function () { return caches.delete("tonk-pages"); });
  }

  // The sessions' states counting.js keeps: another account's are not this one's to show.
  function forgetTables() {
    Object.keys(localStorage).filter(function (k) { return k.indexOf("tonk-table:") === 0; })
      .forEach(function (k) { localStorage.removeItem(k); });
  }

  // The note goes at the foot of the page's content, not its top: it arrives after the page
  // is drawn (the browser answers persist() when it likes), and nothing the reader is
  // looking at may move down under the thumb (Lighthouse measured a shift of 0.3 here).
  function storageNote() {
    var spot = document.getElementById("main");
    if (!account || !spot || !navigator.storage || !navigator.storage.persist) return;
    navigator.storage.persist().then(function (granted) {
      var seen = false;
      try { seen = localStorage.getItem("tonk-storage-note") === "1"; } catch (e) { seen = true; }
      if (granted || seen) return;
      var note = el("div", "flash info storage-note");
      note.setAttribute("role", "note");
      note.appendChild(el("p", "", say("storage")));
      var ok = el("button", "btn", say("got-it"));
      ok.type = "button";
      ok.addEventListener("click", function () {
        try { localStorage.setItem("tonk-storage-note", "1"); } catch (e) { /* shown again */ }
        note.remove();
      });
      note.appendChild(ok);
      spot.appendChild(note);
    });
  }

  // -- "offline, as of HH:MM" ----------------------------------------------------------------
  var mark = document.getElementById("offline-mark");
  var freshAt = body.getAttribute("data-offline-as-of") || new Date().toISOString();
  function showMark(on) {
    if (!mark) return;
    mark.hidden = !on;
    mark.textContent = on ? say("mark", {time: hhmm(freshAt)}) : "";
  }
  if (body.getAttribute("data-offline-as-of")) showMark(true);

  // Corrections, voids, payments, seats, closing, another language: they need a connection,
  // and say so. (A new session does not: with no signal it is started on the phone, night.js.)
  function needsNet(form) {
    var action = form.getAttribute("action") || "";
    var recording = form.id === "hand-form" && !form.querySelector('input[name="version"]');
    // (a new session with no signal is started on the phone: night.js)
    var starting = form.id === "new-session" && !!window.indexedDB && !!window.TonkCount;
    return !recording && !starting && !/signout/.test(action);
  }
  function offlineForms(off) {
    Array.prototype.forEach.call(document.querySelectorAll('form[method="post"]'), function (form) {
      if (!needsNet(form)) return;
      var note = form.querySelector(".needs-net");
      Array.prototype.forEach.call(form.querySelectorAll("button:not([type=button])"), function (b) {
        b.disabled = off;
      });
      if (off && !note) {
        note = el("span", "needs-net", say("needs-net"));
        form.appendChild(note);
      } else if (!off && note) {
        note.remove();
      }
    });
  }
  var offNow = !navigator.onLine || !!body.getAttribute("data-offline-as-of");
  if (offNow) offlineForms(true);
  window.addEventListener("offline", function () { showMark(true); offlineForms(true); });
  window.addEventListener("online", function () {
    offlineForms(false);
    sendNow();
  });
  document.addEventListener("tonk:fresh", function () {  // the live part came back
    if (body.getAttribute("data-offline-as-of")) {  // a page from the phone: the fresh one
      location.reload();
      return;
    }
    freshAt = new Date().toISOString();
    if (navigator.onLine) { showMark(false); offlineForms(false); }
  });

  // -- Save with no signal --------------------------------------------------------------------
  var form = document.getElementById("hand-form");
  var recordPath = /^\/sessions\/(\d+)\/hands\/new$/.exec(location.pathname);
  if (form && recordPath && !form.querySelector('input[name="version"]')) {
    var once = form.querySelector('input[name="once"]');
    // Each Save gets a key made on the phone (before tonk.js may put back the key of the same
    // form sent before a back step): the same key whichever way the hand reaches the server.
    // The same form sent again unchanged (a second tap, or back to it kept in memory) keeps
    // its key; tonk.js puts back the key of a form fetched anew after a back step.
    var lastKey = null, lastTyped = null;
    form.addEventListener("submit", function () {
      if (!once) return;
      var typed = window.TonkPage.typed(form);  // (tonk.js)
      if (lastKey === null || typed !== lastTyped) lastKey = uuid();
      lastTyped = typed;
      once.value = lastKey;
    }, true);
    form.addEventListener("submit", function (e) {
      if (!once) return;
      var summary = describe(form), fields = [];
      extra(form, "outbox_summary", summary);
      extra(form, "outbox_account", String(account));
      new FormData(form).forEach(function (value, name) {
        if (["csrf_token", "once", "outbox_summary", "outbox_account"].indexOf(name) < 0) {
          fields.push([name, value]);
        }
      });
      if (navigator.onLine) return;  // sent as a form; the worker keeps it if that fails
      e.preventDefault();
      // a second tap while the hand is being kept is that hand (it kept it again, then the
      // second way back to the session cut the first short)
      if (form.hasAttribute("data-keeping")) return;
      form.setAttribute("data-keeping", "");
      TonkOutbox.add({key: once.value, session: +recordPath[1], account: account,
                      fields: fields, summary: summary}).then(function () {
        if (navigator.serviceWorker && navigator.serviceWorker.ready) {
          navigator.serviceWorker.ready.then(function (reg) {
            if (reg.sync) reg.sync.register("tonk-outbox").catch(function () {});
          });
        }
        location.href = "/sessions/" + recordPath[1];
      }, function () {
        form.removeAttribute("data-sending");
        form.removeAttribute("data-keeping");
        window.alert(say("not-kept"));
      });
    });
    // (back to the form, as the browser kept it: it may keep another hand)
    window.addEventListener("pageshow", function () { form.removeAttribute("data-keeping"); });
  }
  function extra(f, name, value) {
    var input = f.querySelector('input[name="' + name + '"]');
    if (!input) {
      input = el("input");
      input.type = "hidden";
      input.name = name;
      f.appendChild(input);
    }
    input.value = value;
  }
  // What was entered, in the form's own words (its labels): how it ended, who, the counts.
  function describe(f) {
    function labelOf(input) {
      var l = input && f.querySelector('label[for="' + input.id + '"]');
      var part = l && (l.querySelector(".kind") || l);
      return part ? part.textContent.trim() : "";
    }
    var parts = [], kind = f.querySelector('input[name="kind"]:checked');
    if (kind) parts.push(labelOf(kind));
    var who = f.querySelector('input[name="player"]:checked');
    var whoBox = who && who.closest("[data-kinds]");
    if (who && whoBox && !whoBox.hidden) parts.push(labelOf(who));
    var counts = [];
    Array.prototype.forEach.call(f.querySelectorAll(".count-row"), function (row) {
      var input = row.querySelector(".count");
      if (!row.hidden && input && input.value.trim() !== "") {
        counts.push(row.getAttribute("data-name") + " " + input.value.trim());
      }
    });
    if (counts.length) parts.push(counts.join(", "));
    var dealer = f.querySelector('select[name="dealer"]');
    if (dealer && dealer.value) parts.push(say("dealer", {name: dealer.value}));
    return parts.join(" · ");
  }

  // The dealer of a hand recorded after others still waiting: the seat after the last one's
  // (the form lists the players in seat order), as the server does for a hand it stores.
  function dealerAfterWaiting() {
    var dealer = form && form.querySelector('select[name="dealer"]');
    if (!dealer || !recordPath) return;
    var spot = document.getElementById("phone-table");  // (the state this form was made from)
    var upTo = spot ? JSON.parse(spot.textContent).number : Infinity;
    TonkOutbox.all().then(function (entries) {
      var last = TonkOutbox.pending(entries, +recordPath[1], account, upTo).pop();
      var was = last && last.fields.filter(function (f) { return f[0] === "dealer"; })[0];
      if (!was) return;
      var names = Array.prototype.map.call(dealer.options, function (o) { return o.value; });
      var at = names.indexOf(was[1]);
      if (at >= 0) dealer.value = names[(at + 1) % names.length];
    });
  }
  dealerAfterWaiting();

  // -- the waiting hands on the session page ------------------------------------------------
  var box = document.getElementById("outbox");
  var sessionId = box ? +box.getAttribute("data-session") : 0;
  var sending = false;

  function draw() {
    return TonkOutbox.all().then(function (entries) {
      var mine = entries.filter(function (e) { return e.account === account && e.state !== "sent"; });
      if (!box) { elsewhere(mine); return mine; }
      var here = mine.filter(function (e) { return e.session === sessionId; });
      var waiting = here.filter(function (e) { return e.state === "waiting"; });
      var needs = here.filter(function (e) { return e.state === "needs"; });
      box.textContent = "";
      box.hidden = !here.length;
      if (!here.length) return mine;
      var head = el("p", "outbox-count");
      head.setAttribute("role", "status");
      var bits = [];
      if (waiting.length) bits.push(say(waiting.length === 1 ? "one" : "many", {n: waiting.length}));
      if (needs.length) bits.push(say(needs.length === 1 ? "needs-one" : "needs-many", {n: needs.length}));
      head.appendChild(el("strong", "", bits.join(" · ")));
      box.appendChild(head);
      if (waiting.length) {
        box.appendChild(el("p", "hint", say("not-counted")));
        var send = el("button", "btn primary", sending ? say("sending") : say("send"));
        send.type = "button";
        send.id = "send-now";
        send.disabled = sending;
        send.addEventListener("click", sendNow);
        box.appendChild(send);
      }
      var list = el("ol", "hands waiting");
      list.setAttribute("reversed", "");
      here.slice().reverse().forEach(function (e) {
        var li = el("li", "hand " + (e.state === "needs" ? "needs-you" : "not-sent"));
        li.setAttribute("data-key", e.key);
        var top = el("p", "");
        top.appendChild(el("span", "badge " + (e.state === "needs" ? "needs" : "waiting"),
                           e.state === "needs" ? say("needs") : say("not-sent")));
        top.appendChild(document.createTextNode(" " + (e.summary || "")));
        li.appendChild(top);
        li.appendChild(el("p", "hint", say("saved-at", {time: hhmm(e.at)})));
        if (e.state === "needs") {
          li.appendChild(el("p", "reason", e.reason || ""));
          var again = el("button", "btn", say("retry"));
          again.type = "button";
          again.addEventListener("click", function () {
            TonkOutbox.retry(e.id).then(sendNow);
          });
          var drop = el("button", "btn danger", say("remove"));
          drop.type = "button";
          drop.addEventListener("click", function () {
            if (window.confirm(say("remove-confirm"))) TonkOutbox.remove(e.id).then(draw);
          });
          li.appendChild(again);
          li.appendChild(drop);
        }
        list.appendChild(li);
      });
      box.appendChild(list);
      document.dispatchEvent(new CustomEvent("tonk:outbox"));  // counting.js counts them
      return mine;
    });
  }

  // Hands went (from this page or the worker's Background Sync): the page as the server has
  // it now (the page of the session whose hands went, and a page from the phone, whole, so
  // nothing on it is older than the hands), else the live part and the hands still here.
  function sentSome(report) {
    var count = report.sent, ours = (report.sessions || []).indexOf(sessionId) >= 0;
    if (count && ((box && ours) || body.getAttribute("data-offline-as-of"))) {
      location.reload();
      return Promise.resolve();
    }
    return draw().then(function () {
      if (count) document.dispatchEvent(new CustomEvent("tonk:refresh"));
    });
  }
  if (navigator.serviceWorker) {
    navigator.serviceWorker.addEventListener("message", function (e) {
      if (e.data && e.data.outbox) sentSome(e.data.outbox);
      if (e.data && e.data.send) sendNow();
    });
  }

  // On the other pages: a link to each session with hands kept on the phone.
  function elsewhere(mine) {
    var spot = document.getElementById("offline-mark"), list = document.getElementById("outbox-elsewhere");
    if (list) list.remove();
    if (!spot || !mine.length) return;
    var by = {};
    mine.forEach(function (e) { by[e.session] = (by[e.session] || 0) + 1; });
    list = el("p", "flash info", "");
    list.id = "outbox-elsewhere";
    Object.keys(by).forEach(function (id, i) {
      if (i) list.appendChild(document.createTextNode(" · "));
      var a = el("a", "", say(by[id] === 1 ? "one" : "many", {n: by[id]}));
      a.href = "/sessions/" + id;
      list.appendChild(a);
    });
    spot.parentNode.insertBefore(list, spot.nextSibling);
  }

  function sendNow() {
    if (sending) return Promise.resolve();
    sending = true;
    return draw().then(function () { return TonkOutbox.sendAll(); }).then(function (report) {
      sending = false;
      return sentSome(report);
    }, function () { sending = false; return draw(); });
  }

  // Signing out with hands not sent: say so first; then the pages kept are cleared.
  Array.prototype.forEach.call(document.querySelectorAll('form[action$="/signout"]'), function (f) {
    f.addEventListener("submit", function (e) {
      if (f.getAttribute("data-cleared")) return;
      e.preventDefault();
      TonkOutbox.all().then(function (entries) {
        var left = entries.filter(function (x) {
          return x.account === account && x.state !== "sent";  // (sent: the server has them)
        }).length;
        if (left && !window.confirm(say("signout", {n: left}))) {
          f.removeAttribute("data-sending");
          Array.prototype.forEach.call(f.querySelectorAll("button"), function (b) {
            b.disabled = false;
            b.removeAttribute("aria-busy");
          });
          return null;
        }
        return forgetPages().then(function () {
          try { localStorage.removeItem("tonk-account"); forgetTables(); } catch (x) { /* nothing kept */ }
          f.setAttribute("data-cleared", "1");
          f.submit();
        });
      }, function () { f.setAttribute("data-cleared", "1"); f.submit(); });
    });
  });

  if (account) {
    draw().then(function () { if (navigator.onLine) sendNow(); });
    window.addEventListener("pageshow", function (e) { if (e.persisted && navigator.onLine) sendNow(); });
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden && navigator.onLine) sendNow();
    });
    storageNote();
  }
})();
