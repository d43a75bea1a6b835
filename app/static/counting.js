/* Tonk Tally counts on the phone: the same core as the server (app/core, in Pyodide, in the
   worker of core-worker.js, which tonk.js starts: window.TonkCount), started only when this
   page needs it: with no signal (the page opened so, the signal lost, a request that got no
   answer), for hands waiting on the phone, for Save with no signal; never in the way of the
   first paint, nor started online with nothing waiting. Loaded by the pages that carry the
   state a phone counts from (#phone-table: the session page, the record form, settle-up)
   and by /check (whose own script asks the core with no signal).

   - Session page: the hands waiting in the outbox are counted from that state, so the
     totals, who pays whom, the pots and the next dealer include them (marked as not
     confirmed), and each waiting hand shows its payments and why.
   - Record form: Save shows the hand's payments and the new totals at once, from the
     phone, when the signal is gone or the core runs already; the server's page replaces
     them when it arrives, and if the two ever differ the hand is marked and the server's
     ruling stands.
   - Settle-up: with hands waiting, the fewest transfers that settle the totals with them.
   - The session page's totals carry data-provisional="1" while they count hands the server
     does not have.
   The server settles every hand again when it arrives: its ruling is the record. */
(function () {
  "use strict";
  var core = window.TonkCount;  // (tonk.js, loaded before this script)
  if (!core) return;
  // The state as the page has it now (the live part brings a fresh one with each change), or
  // as another page of the session had it later (a settle-up page kept on the phone before
  // the last hands the session page saw): the latest revision the phone has seen wins.
  var table = {};
  function fresh() {
    var spot = document.getElementById("phone-table");
    if (!spot) return table;
    table = JSON.parse(spot.textContent);
    var key = "tonk-table:" + table.session;
    try {
      var seen = JSON.parse(localStorage.getItem(key) || "null");
      if (seen && seen.night && seen.revision > table.revision) table = seen;
      else localStorage.setItem(key, JSON.stringify(table));
    } catch (e) { /* no storage: the page's own */ }
    return table;
  }
  fresh();
  var account = +(document.body.getAttribute("data-account") || 0);
  var say = window.TonkPage.words("offline-words"), el = window.TonkPage.el;  // (tonk.js)

  // -- the core: asked when needed ----------------------------------------------------------
  var ask = core.ask;
  // No signal: the page may need the core any moment now (a hand saved, a page opened from
  // the phone's cache), so it starts, when the phone is idle.
  function offline() {
    return !navigator.onLine || !!document.body.getAttribute("data-offline-as-of");
  }
  function warm() { idle(function () { core.start().catch(function () {}); }); }
  function idle(work) {
    var later = function () { (window.requestIdleCallback || setTimeout)(work); };
    if (document.readyState === "complete") later(); else window.addEventListener("load", later);
  }

  // The hands of this session, of the signed-in account, that the phone counts on top of the
  // state it holds: waiting to be sent, or sent since that state (outbox.js).
  function pendingHere(entries) {
    return window.TonkOutbox ? window.TonkOutbox.pending(entries, table.session, account, table.number) : [];
  }

  // -- what the phone counted, on the page ----------------------------------------------------
  function tone(node, data) {
    node.classList.remove("pos", "neg", "zero");
    node.classList.add(+data > 0 ? "pos" : +data < 0 ? "neg" : "zero");
  }
  function showTotals(rows, root, pending) {
    rows.forEach(function (row) {
      var line = (root || document).querySelector('[data-player="' + CSS.escape(row.name) + '"][data-total]');
      if (!line) return;
      line.setAttribute("data-total", row.total.data);
      line.classList.toggle("unconfirmed", !!pending);
      var cells = line.querySelectorAll("td .amt");
      var parts = cells.length ? [row.hands, row.side_bets, row.returned, row.total] : [row.total];
      [["hands", row.hands], ["side_bets", row.side_bets], ["pots_back", row.returned]].forEach(function (p) {
        var cell = line.querySelector('[data-part="' + p[0] + '"]');
        if (cell) cell.setAttribute("data-amount", p[1].data);
      });
      var amts = cells.length ? cells : line.querySelectorAll(".amt");
      parts.forEach(function (part, i) {
        if (!amts[i]) return;
        amts[i].textContent = part.shown;
        tone(amts[i], part.data);
      });
    });
  }
  // Who leads: the highest total (push-ups: the lowest, the best), if anyone stands apart.
  function leader(rows) {
    var sign = table.night && table.night.rules.scoring === "push_ups" ? -1 : 1, best = null;
    rows.forEach(function (r) {
      if (!best || sign * r.total.data > sign * best.total.data) best = r;
    });
    var tied = rows.filter(function (r) { return best && r.total.data === best.total.data; });
    return tied.length === 1 && (sign < 0 || +best.total.data > 0) ? best : null;
  }
  function transferItem(t) {
    var li = el("li");
    li.setAttribute("data-from", t.from);
    li.setAttribute("data-to", t.to);
    li.setAttribute("data-amount", t.amount);
    li.appendChild(el("span", "who", t.from));
    li.appendChild(document.createTextNode(" → "));
    li.appendChild(el("span", "who", t.to));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(el("strong", "amt", t.shown));
    return li;
  }
  function payments(result) {
    var list = el("ul", "payments phone");
    (result.payments || []).forEach(function (p) {
      list.appendChild(el("li", "", p.from + " → " + p.to + " " + p.amount));
    });
    return list;
  }
  function explained(hand) {
    var box = el("details", "phone-why");
    box.appendChild(el("summary", "", say("phone-why")));
    var lines = (hand.result.explanation || []).slice();
    (hand.side_bets || []).forEach(function (s) { lines = lines.concat(s.explanation || []); });
    lines.forEach(function (line) { box.appendChild(el("p", "", line)); });
    return box;
  }

  // The session page: the waiting hands counted with the rest.
  function sessionPage(entries) {
    var mine = pendingHere(entries);
    var note = document.getElementById("phone-note");
    if (!mine.length) { if (note) note.remove(); return Promise.resolve(); }
    return ask({op: "record", table: table, hands: mine.map(function (e) { return e.fields; })})
      .then(function (said) {
        var live = document.getElementById("live");
        showTotals(said.rows, live, true);
        var sums = live && live.querySelector(".totals-sum, ul.totals");
        if (sums) sums.setAttribute("data-provisional", "1");
        var hint = document.querySelector("#outbox > p.hint");
        if (hint) hint.textContent = say("counted-hint");
        var owing = live && live.querySelector("ul.owing");
        if (owing) {
          owing.textContent = "";
          said.transfers.forEach(function (t) { owing.appendChild(transferItem(t)); });
        }
        var pots = live ? live.querySelectorAll("ul.pots li") : [];
        Array.prototype.forEach.call(pots, function (li) {
          var bet = li.getAttribute("data-bet"), amt = li.querySelector(".amt");
          if (bet && amt) amt.textContent = said.pots[bet] || amt.textContent;
        });
        var dealer = live && live.querySelector(".next-dealer strong");
        if (dealer) dealer.textContent = said.dealer;
        // "As of hand N": the last hand counted, the waiting ones included and marked.
        var counted = said.hands.filter(function (h) { return !h.error; });
        var asOf = live && live.querySelector(".as-of");
        if (counted.length) {
          if (!asOf && live) {
            asOf = el("p", "as-of hint");
            var sums = live.querySelector(".totals-sum, ul.totals");
            if (sums) sums.parentNode.insertBefore(asOf, sums.nextSibling);
          }
          if (asOf) {
            var last = counted[counted.length - 1].number;
            asOf.textContent = say("as-of-waiting", {n: last, first: counted[0].number});
            asOf.setAttribute("data-waiting-from", String(counted[0].number));
          }
        }
        var title = live && live.querySelector("#totals-title");
        if (title) {
          note = document.getElementById("phone-note");  // (two counts may cross)
          if (!note) { note = el("p", "phone-note hint"); note.id = "phone-note"; }
          var best = leader(said.rows);
          note.textContent = say("counted", {n: mine.length}) +
            (best ? " " + say("leads", {name: best.name, amount: best.total.shown}) : "");
          title.parentNode.insertBefore(note, title.nextSibling);
        }
        mine.forEach(function (e, i) {
          var hand = said.hands[i], li = document.querySelector('#outbox li[data-key="' + CSS.escape(e.key) + '"]');
          if (!li || li.querySelector(".phone-result")) return;
          var box = el("div", "phone-result");
          if (hand.error) {
            box.appendChild(el("p", "reason", say("phone-refuses", {why: hand.error})));
          } else {
            box.appendChild(el("p", "", say("phone-says", {n: hand.number})));
            box.appendChild(el("p", "", (hand.result.explanation || [""])[0]));
            box.appendChild(payments(hand.result));
            box.appendChild(explained(hand));
          }
          li.appendChild(box);
        });
      });
  }

  // Settle-up: with hands waiting, the transfers that settle the totals with them.
  function settlePage(entries) {
    var mine = pendingHere(entries);
    if (!mine.length) return Promise.resolve();
    return ask({op: "record", table: table, hands: mine.map(function (e) { return e.fields; })})
      .then(function (said) {
        showTotals(said.rows, document.getElementById("main"), true);
        var list = document.querySelector("ul.transfers");
        if (!list) return;
        list.textContent = "";
        said.transfers.forEach(function (t) {
          var li = transferItem(t);
          li.classList.add("unconfirmed");
          list.appendChild(li);
        });
        var note = el("p", "phone-note hint", say("plan-here", {n: mine.length}));
        note.id = "phone-note";
        list.parentNode.insertBefore(note, list);
      });
  }

  // The record form: Save shows the phone's answer at once; the server's page follows.
  function recordForm(form) {
    form.addEventListener("submit", function () {
      if (form.querySelector('input[name="version"]') || !(offline() || core.running())) return;
      var fields = [];
      new FormData(form).forEach(function (value, name) {
        if (["csrf_token", "once", "outbox_summary", "outbox_account"].indexOf(name) < 0) {
          fields.push([name, String(value)]);
        }
      });
      entries().then(function (entries) {
        var before = pendingHere(entries).map(function (e) { return e.fields; });
        return ask({op: "record", table: table, hands: before.concat([fields])});
      }).then(function (said) {
        var hand = said.hands[said.hands.length - 1], box = document.getElementById("phone-answer");
        if (!box || hand.error) return;
        box.textContent = "";
        box.appendChild(el("h2", "", say("phone-says", {n: hand.number})));
        box.appendChild(el("p", "", (hand.result.explanation || [""])[0]));
        box.appendChild(payments(hand.result));
        var totals = el("ul", "totals");
        said.rows.forEach(function (r) {
          var li = el("li");
          li.setAttribute("data-player", r.name);
          li.setAttribute("data-total", r.total.data);
          li.appendChild(el("span", "who", r.name));
          li.appendChild(document.createTextNode(" "));
          var amt = el("span", "amt", r.total.shown);
          tone(amt, r.total.data);
          li.appendChild(amt);
          totals.appendChild(li);
        });
        box.appendChild(totals);
        box.hidden = false;
        try {
          sessionStorage.setItem("tonk-phone-said", JSON.stringify({
            session: table.session, number: hand.number,
            totals: said.rows.map(function (r) { return [r.name, r.total.data]; })}));
        } catch (e) { /* nothing kept: nothing compared */ }
      }, function () { /* the phone could not count: the server's page says it all */ });
    });
  }

  // The session page after a Save: the server's totals against what the phone said.
  function compareWithServer() {
    var kept;
    try {
      kept = JSON.parse(sessionStorage.getItem("tonk-phone-said") || "null");
      sessionStorage.removeItem("tonk-phone-said");
    } catch (e) { return; }
    if (!kept || kept.session !== table.session || kept.number !== table.number) return;
    var differs = kept.totals.some(function (pair) {
      var line = document.querySelector('#live [data-player="' + CSS.escape(pair[0]) + '"][data-total]');
      return line && line.getAttribute("data-total") !== pair[1];
    });
    if (!differs) return;
    document.documentElement.setAttribute("data-phone-differs", String(kept.number));
    var note = el("p", "flash error", say("differs", {n: kept.number}));
    note.setAttribute("role", "alert");
    var main = document.getElementById("main");
    if (main) main.insertBefore(note, main.firstChild);
  }

  // -- which page ----------------------------------------------------------------------------
  var form = document.getElementById("hand-form");
  function entries() {  // (outbox.js is loaded after this script)
    if (!window.TonkOutbox) return Promise.resolve([]);
    return window.TonkOutbox.all().then(function (all) {
      fresh();  // (the hands sent that the state held now includes: counted in it, dropped)
      if (table.session) window.TonkOutbox.dropSent(table.session, table.number).catch(function () {});
      return all;
    }, function () { return []; });
  }

  // (after outbox.js and offline.js, which come after this script)
  document.addEventListener("DOMContentLoaded", function () {
    if (offline()) warm();
    window.addEventListener("offline", warm);
    document.addEventListener("tonk:nosignal", warm);
    if (!document.getElementById("phone-table")) return;  // (/check: its own script asks)
    if (form) {
      recordForm(form);
    } else if (document.getElementById("outbox")) {
      compareWithServer();
      var recount = function () {
        entries().then(function (all) {
          var mine = pendingHere(all);
          if (mine.length) idle(function () { sessionPage(all).catch(function () {}); });
        });
      };
      document.addEventListener("tonk:outbox", recount);
      recount();
      if (navigator.onLine) idle(prefetch);
    } else {
      entries().then(function (all) { idle(function () { settlePage(all).catch(function () {}); }); });
    }
  });

  // An online visit of a session page: its settle-up page fetched, so the service worker
  // keeps it for no signal (the core's files are tonk.js's to keep), unless the phone kept
  // it in the last ten minutes (the state counted from is the latest the phone has seen
  // anyway): a page seen again and again (each hand saved) fetches it once, and nothing is
  // kept again behind signing out, which clears the pages kept.
  function prefetch() {
    var url = "/sessions/" + table.session + "/settle";
    var kept = window.caches ? caches.match(url, {cacheName: "tonk-pages"}) : Promise.resolve(null);
    kept.then(function (hit) {
      var at = hit && Date.parse(hit.headers.get("X-Tonk-Kept") || "");
      if (at && Date.now() - at < 600000) return null;
      return fetch(url, {credentials: "same-origin", priority: "low"});
    }).catch(function () { /* next visit */ });
  }
})();
