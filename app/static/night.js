/* A night started on the phone with no signal (issue 41): kept on the phone as the core's
   events (app/core/night.py, the store and the sending: nightstore.js), counted by the
   core's fold in Pyodide (TonkCount.ask, op "events"), sent to the server when the signal
   is back.

   - The new-session form (/sessions/new, kept by the service worker): Start with no signal
     reads the form on the phone as a "started" event (the core reads it: the same fields as
     the server's form), keeps it in IndexedDB (persistent storage asked for) under a new
     night's uid, and opens the night's own page, /phone/nights/<uid>.
   - That page (app/web/sessions/templates/sessions/phone_night.html): <html data-night="phone"> and a status
     that says the night is on this phone only, with [data-waiting="N"] (the changes not
     sent yet); the totals ([data-player][data-total]), who deals, who pays whom and each
     hand, from the core's fold; the hand fields (drawn for the night's players and rules
     as the dispute checker draws them), a player joining or leaving.
   - With a signal (on load, or when it comes back) the page sends the events the server
     does not hold yet, in order, each under its id (POST /phone/nights/<uid>/events, the
     API's night door for a phone signed in by cookie): a send cut halfway is sent again
     from where the server says it stopped, and the server stores each event once. When it
     holds them all, the page leads to the session's own page.
   - The home page lists the nights the phone holds and how many changes of each wait, and
     with a signal sends them by the same code (sendNight); each then leads to its session.
   Nothing is dropped: a refusal is shown with the server's reason and the night stays. */
(function () {
  "use strict";
  var nights = window.TonkNights;  // (nightstore.js: what the phone keeps, and its sending)
  if (!nights) return;
  var get = nights.get, put = nights.put, all = nights.all, hex = nights.hex;
  var waitingOf = nights.waitingOf, keepForGood = nights.keepForGood, sendNight = nights.sendNight;
  var sayOut = nights.words;
  var body = document.body, account = +(body.getAttribute("data-account") || 0);

  // -- words and small helpers ----------------------------------------------------------------
  var wordsOf = window.TonkPage.words, el = window.TonkPage.el;  // (tonk.js)
  function each(root, selector, fn) {
    Array.prototype.forEach.call(root.querySelectorAll(selector), fn);
  }
  function pairsOf(form) {
    var out = [];
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrf_token" && name !== "once") out.push([name, String(value)]);
    });
    return out;
  }
  function ask(request) { return window.TonkCount.ask(request); }
  function offline() { return !navigator.onLine; }

  // Each problem beside its field (a note err-<field>), else at the form's top.
  function clearProblems(form) {
    each(form, "p.err[data-phone], .error-summary", function (p) { p.remove(); });
    each(form, "[aria-invalid=true]", function (i) { i.removeAttribute("aria-invalid"); });
  }
  function targetOf(form, field) {
    return field && (document.getElementById(field) || document.getElementById(field + "-0") ||
      form.querySelector('[name="' + CSS.escape(field) + '"]'));
  }
  function showProblem(form, field, text) {
    var target = targetOf(form, field);
    var note = el("p", "err", text);
    note.setAttribute("data-phone", "1");
    note.setAttribute("role", "alert");
    note.id = "err-" + (field || "form");
    var place = target && (target.closest(".field, fieldset, .count-row, p") || target);
    if (place && form.contains(place)) place.appendChild(note);
    else form.insertBefore(note, form.firstChild);
    if (target) { target.setAttribute("aria-invalid", "true"); target.focus(); }
  }

  // Every problem of a form at once, as the server's page shows them (macros.html
  // error_summary): each beside its field, and listed at the form's top under their count,
  // each linking to its field (one of no field on the form: said there only); the first
  // field to fix has the focus. found: [field, words]; words: the page's words (fix-one,
  // fix-other).
  function showAll(form, found, words) {
    var seat = {players: "player-0"};  // (the seats' own problem: shown by the first seat)
    var gone = document.getElementById("error-summary");  // (another form's, shown before)
    if (gone) gone.remove();
    var box = el("div", "error-summary"), list = el("ul"), first = null;
    box.id = "error-summary";
    box.setAttribute("role", "alert");
    box.setAttribute("aria-labelledby", "error-summary-title");
    var one = new Intl.PluralRules(document.documentElement.lang || "en").select(found.length) === "one";
    var title = el("h2", "", words(one ? "fix-one" : "fix-other", {n: found.length}));
    title.id = "error-summary-title";
    box.appendChild(title);
    found.forEach(function (f) {
      var item = el("li"), field = f[0] && (seat[f[0]] || f[0]), target = targetOf(form, field);
      if (target) {
        showProblem(form, field, f[1]);
        var link = el("a", "", f[1]), to = target.id || field;
        link.href = "#" + to;
        link.setAttribute("data-field", to);
        item.appendChild(link);
        first = first || target;
      } else {
        var said = el("span", "err", f[1]);
        said.id = "err-" + (field || "form");
        item.appendChild(said);
      }
      list.appendChild(item);
    });
    box.appendChild(list);
    form.insertBefore(box, form.firstChild);
    if (first) first.focus();
  }

  // -- the new-session form with no signal ----------------------------------------------------
  var newForm = document.getElementById("new-session");
  if (newForm && account && window.TonkCount) {
    var sayNew = wordsOf("new-session-words");
    newForm.addEventListener("submit", function (e) {
      if (!offline()) return;  // with a signal the server starts the night, as ever
      e.preventDefault();
      clearProblems(newForm);
      // (and what the server said of it when it was last sent)
      each(newForm, "#error-summary, p.err[id^=err-]", function (p) { p.remove(); });
      var pairs = pairsOf(newForm);
      // (tonk.js rests the button while a form is sent: this one is not, it is read here)
      function again() {
        newForm.removeAttribute("data-sending");
        each(newForm, "button", function (b) { b.disabled = false; b.removeAttribute("aria-busy"); });
      }
      ask({op: "events", events: [], start: pairs}).then(function (read) {
        if (!read.added) setTimeout(again, 0);
        if (read.problems) {  // the form's own (codes) and the core's refusals, all at once
          var found = Object.keys(read.problems).map(function (field) {
            return [field, window.TonkPage.problem(sayNew, read.problems[field], field)];
          });
          Object.keys(read.refusals || {}).forEach(function (field) {
            found.push([field, read.refusals[field]]);
          });
          showAll(newForm, found, sayNew);
          return null;
        }
        if (!read.added) {
          showProblem(newForm, read.refusal ? read.refusal.field : null,
                      read.refusal ? read.refusal.error : read.error);
          return null;
        }
        var started = read.added, uid = hex();
        var event = {id: hex(), seq: 1};
        Object.keys(started).forEach(function (k) { event[k] = started[k]; });
        event.share_token = nights.shareToken();  // its share QR, before the server has it
        keepForGood();
        return put({uid: uid, account: account, name: started.name, events: [event], sent: 0,
                    session: null, page: null, problem: null, at: new Date().toISOString()})
          .then(function () { location.href = "/phone/nights/" + uid; });
      }).catch(function (error) {
        setTimeout(again, 0);
        showProblem(newForm, null, String(error && error.message || error));
      });
    });
  }

  // -- the home page: the nights the phone holds, sent from here when there is a signal -------
  var list = document.getElementById("phone-nights");
  if (list && account) {
    all().then(function (nights) {
      var mine = nights.filter(function (n) { return n.account === account && waitingOf(n) > 0; });
      var ul = list.querySelector("ul");
      var listed = mine.sort(function (a, b) { return a.at < b.at ? 1 : -1; }).map(function (n) {
        var li = el("li", "hand");
        li.setAttribute("data-phone-night", n.uid);
        li.appendChild(el("a", "", n.name || n.uid));
        li.appendChild(el("p", "hint"));
        ul.appendChild(li);
        shownListed(n, li);
        return {night: n, li: li};
      });
      list.hidden = !mine.length;
      // With a signal the nights are sent from here (the same sending as the night's page);
      // each then leads to the server's session.
      function sendListed() {
        var sends = listed.filter(function (x) { return waitingOf(x.night) && !offline(); })
          .map(function (x) {
            x.li.querySelector("p").textContent = sayOut("sending");
            var shown = function () { shownListed(x.night, x.li); return !waitingOf(x.night); };
            return sendNight(x.night).then(shown, shown);
          });
        Promise.all(sends).then(function (sent) {
          if (sent.some(Boolean)) cardsAgain();  // the server holds a night more
        });
      }
      window.addEventListener("online", sendListed);
      sendListed();
    }).catch(function () { /* no store: nothing to list */ });
  }
  // The page's session cards as the server has them now (a night just sent is among them).
  function cardsAgain() {
    fetch(location.href, {credentials: "same-origin", cache: "no-store"}).then(function (answer) {
      return answer.ok ? answer.text() : null;
    }).then(function (html) {
      var fresh = html && new DOMParser().parseFromString(html, "text/html").querySelector("ul.cards");
      var here = document.querySelector("ul.cards");
      if (fresh && here) here.parentNode.replaceChild(document.importNode(fresh, true), here);
    }).catch(function () { /* the next visit shows them */ });
  }
  // A listed night as it stands: its page on the phone while changes wait, else the session.
  function shownListed(n, li) {
    var a = li.querySelector("a"), sent = n.page && !waitingOf(n) && !n.differs;
    li.setAttribute("data-waiting", String(waitingOf(n)));
    a.href = sent ? n.page : "/phone/nights/" + n.uid;
    if (sent) li.setAttribute("data-session", String(n.session));
    li.querySelector("p").textContent = n.problem || (sent ? sayOut("sent")
      : wordsOf("phone-nights")(waitingOf(n) === 1 ? "words-waiting-one" : "words-waiting",
                                {n: waitingOf(n)}));
  }

  // The pages a night started offline needs are kept while there is a signal: the
  // new-session form and the night's page (the service worker keeps what the phone fetches),
  // in the page's language: kept again once the reader has chosen another.
  var lang = document.documentElement.lang || "en";
  if (account && !offline() && !body.getAttribute("data-offline-as-of") && navigator.serviceWorker) {
    var later = function () {
      try { if (sessionStorage.getItem("tonk-night-kept") === lang) return; } catch (e) { /* again */ }
      navigator.serviceWorker.ready.then(function () {
        // A page the worker does not control yet (the first, while it installs) fetches past
        // it: nothing would be kept, and the mark would stop the next page from trying.
        if (!navigator.serviceWorker.controller) return false;
        return Promise.all(["/sessions/new", "/phone/nights/-"].map(function (url) {
          return fetch(url, {credentials: "same-origin", priority: "low"});
        })).then(function () { return true; });
      }).then(function (kept) {
        if (kept) try { sessionStorage.setItem("tonk-night-kept", lang); } catch (e) { /* again */ }
      }).catch(function () { /* the next page tries again */ });
    };
    if (document.readyState === "complete") setTimeout(later, 0); else window.addEventListener("load", later);
  }

  // -- the night's own page -------------------------------------------------------------------
  var page = document.getElementById("phone-night");
  var match = /^\/phone\/nights\/([0-9A-Za-z_-]{1,32})$/.exec(location.pathname);
  if (!page || !match || !window.TonkCount) return;
  var uid = match[1], say = wordsOf("night-words"), root = document.documentElement;
  var night = null, shown = null, drawnFor = "", correcting = null;
  var handForm = document.getElementById("hand-form"), proto = document.getElementById("check-hand");

  function status() {
    var line = document.getElementById("night-status"), n = waitingOf(night);
    line.setAttribute("data-waiting", String(n));
    line.textContent = say(n === 1 ? "only-here-one" : "only-here", {n: n}) +
      (offline() ? " " + say("offline") : "");
    var problem = document.getElementById("night-problem");
    problem.hidden = !night.problem;
    problem.textContent = night.problem || "";
    if (night.problem && night.differs && night.page) {  // the server's session, to see it
      var link = el("a", "", night.name || uid);
      link.href = night.page;
      problem.appendChild(document.createTextNode(" "));
      problem.appendChild(link);
    }
  }

  // The hand fields for ``read`` (its players, what its rules ask), drawn again only for
  // others (``key``); ``fill`` puts a hand in them before they start (a correction).
  function drawFields(read, key, fill) {
    if (key === drawnFor) return;
    drawnFor = key;
    var step = document.getElementById("hand-step"), part = el("div");
    part.id = "hand-step";
    part.setAttribute("data-hand-root", "");
    var config = window.TonkHandStep(part, proto, read);
    keepBets(part, read.side_bets);
    if (fill) fill(part);
    step.parentNode.replaceChild(part, step);
    if (window.TonkHandForm) window.TonkHandForm(part, config);
  }

  function draw(read) {
    shown = read;
    var closed = read.night.closed;
    root.setAttribute("data-night", "phone");
    page.hidden = false;
    // A closed night takes nothing more (the core refuses it): its forms go, as on the
    // server's closed session.
    if (closed) page.setAttribute("data-closed", read.night.carried ? "carried" : "1");
    ["record-part", "seats-part", "night-rules-part", "night-close"].forEach(function (id) {
      document.getElementById(id).hidden = closed;
    });
    document.getElementById("night-closed").hidden = !closed;
    document.getElementById("close-paid").hidden = !read.all_paid;
    document.getElementById("close-debts").hidden = read.all_paid;
    drawRules(read.rules);
    document.getElementById("night-name").textContent = night.name || uid;
    status();
    // Each total; in a night with side bets, by part (hands, side bets, pots back) as the
    // session page shows it, each part's hook [data-part][data-amount] (API.md).
    var totals = document.getElementById("night-totals"), parts = document.getElementById("night-parts");
    var byPart = !!read.night.side_bets || read.rows.some(function (r) {
      return +r.side_bets.data !== 0 || +r.returned.data !== 0;
    });
    var partRows = parts.querySelector("tbody");
    totals.textContent = "";
    partRows.textContent = "";
    totals.hidden = byPart;
    parts.hidden = !byPart;
    read.rows.forEach(function (r) {
      var row = el(byPart ? "tr" : "li");
      if (r.seated) { row.setAttribute("data-player", r.name); row.setAttribute("data-total", r.data); }
      var who = el("span", "who", r.name);
      if (!byPart) {
        row.appendChild(who);
        row.appendChild(el("span", "amt " + (+r.data > 0 ? "pos" : +r.data < 0 ? "neg" : "zero"), r.total.shown));
        totals.appendChild(row);
        return;
      }
      var th = el("th");
      th.scope = "row";
      th.appendChild(who);
      row.appendChild(th);
      [["hands", r.hands], ["side_bets", r.side_bets], ["pots_back", r.returned]].forEach(function (p) {
        var td = el("td", "", p[1].shown);
        td.setAttribute("data-part", p[0]);
        td.setAttribute("data-amount", p[1].data);
        row.appendChild(td);
      });
      row.appendChild(el("td", "sum", r.total.shown));
      partRows.appendChild(row);
    });
    var pots = document.getElementById("night-pots"), potList = pots.querySelector("ul");
    potList.textContent = "";
    Object.keys(read.pots || {}).forEach(function (bet) {
      var li = el("li");
      li.setAttribute("data-bet", bet);
      li.appendChild(el("span", "who", say("bet-" + bet) || bet));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("strong", "amt", read.pots[bet]));
      potList.appendChild(li);
    });
    pots.hidden = closed || !potList.children.length;
    document.getElementById("night-dealer").textContent = say("deals", {name: read.dealer});
    var transfers = document.getElementById("night-transfers");
    transfers.textContent = "";
    if (!read.transfers.length) transfers.appendChild(el("li", "hint", say("nobody")));
    read.transfers.forEach(function (t) {
      var li = el("li", "", say("pays", {from: t.from, to: t.to, amount: t.shown}) + " ");
      li.setAttribute("data-from", t.from);
      li.setAttribute("data-to", t.to);
      li.setAttribute("data-amount", t.amount);
      var paid = el("button", "btn", say("paid-in-full"));
      paid.type = "button";
      paid.addEventListener("click", function () {
        add({add: {id: hex(), kind: "paid", payer: t.from, payee: t.to, amount: t.amount}}, paidForm);
      });
      if (!closed) li.appendChild(paid);
      transfers.appendChild(li);
    });
    var payments = document.getElementById("night-payments");
    payments.textContent = "";
    read.night.payments.forEach(function (p) {
      if (p.undone) return;
      var li = el("li", "", p.payer + " \u2192 " + p.payee + " " + p.amount + " · " + say("paid"));
      li.setAttribute("data-paid", String(p.id));
      payments.appendChild(li);
      if (!closed) li.appendChild(reasonForm("undo-" + p.id, say("undo-open"), say("why-undo"), say("undo"),
                                function (reason) { return {kind: "undone", payment: p.id, reason: reason}; }));
    });
    var hands = document.getElementById("night-hands");
    hands.textContent = "";
    read.hands.slice().reverse().forEach(function (h) {
      var li = el("li", "hand");
      li.setAttribute("data-hand", String(h.number));
      var kind = proto.content.querySelector("label[for='kind-" + h.end.kind + "'] .kind");
      li.appendChild(el("strong", "", say("hand", {n: h.number}) + " · " +
                        (kind ? kind.textContent : h.end.kind) + (h.end.player ? " · " + h.end.player : "")));
      li.appendChild(el("p", "hint", say("dealt", {name: h.dealer})));
      li.appendChild(el("p", "hint", Object.keys(h.nets).map(function (n) { return n + " " + h.nets[n]; }).join(", ")));
      (h.side_bets || []).forEach(function (b) {  // (as the session page's side_bet_lines)
        var line = el("div", "side-bet-lines"), title = el("p", "side-bet-title");
        line.setAttribute("data-bet", b.bet);
        title.appendChild(el("strong", "", say("bet-" + b.bet) || b.bet));
        title.appendChild(document.createTextNode(" · "));
        title.appendChild(el("span", "amt", say("pot-after", {amount: b.pot_shown})));
        line.appendChild(title);
        var said = el("ul", "explain");
        (b.explanation || []).forEach(function (text) { said.appendChild(el("li", "", text)); });
        line.appendChild(said);
        li.appendChild(line);
      });
      if (h.corrected) {  // (as the session page marks it)
        li.setAttribute("data-corrected", String(h.version));
        li.firstChild.appendChild(document.createTextNode(" "));
        li.firstChild.appendChild(el("span", "badge corrected", say("corrected")));
      }
      var fix = el("button", "btn", say("correct"));
      fix.type = "button";
      fix.setAttribute("data-correct", String(h.number));
      fix.addEventListener("click", function () { startCorrecting(h.number); });
      if (!closed) li.appendChild(fix);
      if (h.voided) {
        li.classList.add("void");
        li.setAttribute("data-voided", "1");
        li.appendChild(el("span", "badge", say("voided")));
      } else if (!closed) {
        li.appendChild(reasonForm("void-" + h.number, say("void"), say("why-void"), say("void-it"),
                                  function (reason) { return {kind: "voided", number: h.number, reason: reason}; }));
      }
      hands.appendChild(li);
    });
    var leave = document.getElementById("leave-name"), choose = el("option", "", leave.getAttribute("data-choose"));
    choose.value = "";
    leave.textContent = "";
    leave.appendChild(choose);  // nobody chosen until somebody is (as the server's form)
    read.players.forEach(function (n) { var o = el("option", "", n); o.value = n; leave.appendChild(o); });
    drawHandFields(read);
  }
  // The hand fields for the night as it stands: drawn again for other players or rules,
  // else as they are (what is typed stays); the dealer is whose turn it is.
  // The side-bet lines of the bets the night plays (``bets``: each bet, its stake as
  // written and the suit if the table fixes it), as the server's hand form draws them.
  function keepBets(part, bets) {
    var played = {};
    bets.forEach(function (b) { played[b.bet] = b; });
    each(part, "fieldset[data-bet]", function (line) {
      var bet = played[line.getAttribute("data-bet")];
      if (!bet) { line.remove(); return; }
      var legend = line.querySelector("legend");
      legend.textContent = legend.textContent.replace("@@stake@@", bet.stake);
      each(line, "[data-suit-fixed]", function (p) {
        if (p.getAttribute("data-suit-fixed") !== bet.suit) p.remove();
      });
      if (bet.suit) each(line, "[data-suit-called]", function (p) { p.remove(); });
    });
  }
  function drawHandFields(read) {
    if (correcting) return;  // (the correction being made stays as typed)
    drawFields(read, JSON.stringify([read.players, read.night.rules, read.side_bets]));
    var dealer = handForm.querySelector("select[name=dealer]");
    if (dealer) dealer.value = read.dealer;
  }

  // The house-rules form holds the night's rules and stake (filled in again only when they
  // change: what is typed stays); saved as the core's "rules" event, from the next hand on.
  var rulesForm = document.getElementById("night-rules"), rulesShown = "";
  function drawRules(rules) {
    var key = JSON.stringify(rules);
    if (key === rulesShown) return;
    rulesShown = key;
    var preset = rulesForm.querySelector("[name=preset]");
    preset.value = rules.preset;
    preset.dispatchEvent(new Event("change"));  // (its summary, and the stake shown or not)
    each(rulesForm, "[name^='opt-']", function (input) {
      input.value = rules.options[input.name.slice(4)] || "";
    });
    rulesForm.querySelector("[name=stake]").value = rules.stake;
  }
  rulesForm.addEventListener("submit", function (e) {
    e.preventDefault();
    add({rules: pairsOf(rulesForm)}, rulesForm).then(function (kept) {
      if (kept) document.getElementById("night-rules-part").open = false;
    });
  });
  // Closing the night, as the settle-up page closes a session: all paid, or what is still
  // open kept as debts.
  var closeForm = document.getElementById("night-close");
  closeForm.addEventListener("submit", function (e) {
    e.preventDefault();
    add({add: {kind: "closed", carry_over: !shown.all_paid}}, closeForm);
  });

  // Correcting a hand, as the server's correct form does: the same fields for the hand's own
  // players and rules, filled in with the hand as it stands, and a reason; saved as the
  // core's "corrected" event (from the hand's version), or left as it is.
  var more = document.getElementById("correct-more"), cancel = document.getElementById("correct-cancel");
  function correctMode(hand) {
    correcting = hand;
    more.hidden = cancel.hidden = !hand;
    each(more, "input, textarea", function (i) { i.disabled = !hand; });
    handForm.querySelector("[name=number]").value = hand ? String(hand.number) : "";
    handForm.querySelector("[name=version]").value = hand ? String(hand.version) : "";
    if (!hand) document.getElementById("reason").value = "";
    handForm.setAttribute("data-correcting", hand ? String(hand.number) : "");
    if (!hand) handForm.removeAttribute("data-correcting");
    document.getElementById("record-title").textContent = hand ? say("correcting", {n: hand.number}) : say("record");
    document.getElementById("night-save").textContent = say(hand ? "save-correction" : "save");
  }
  function fillHand(part, c) {
    var hand = c.hand, end = hand.end;
    function tick(selector, on) { each(part, selector, function (i) { i.checked = on(i.value); }); }
    tick("input[name=kind]", function (v) { return v === end.kind; });
    tick("input[name=player]", function (v) { return v === end.player; });
    tick("input[name=method]", function (v) { return v === (end.method || "spread"); });
    tick("input[name=first_turn]", function () { return !!end.first_turn; });
    tick("input[name=double_double]", function () { return !!end.double_double; });
    tick("input[name=five_face]", function (v) { return (end.five_face_cards || []).indexOf(v) >= 0; });
    c.players.forEach(function (name, i) {
      var count = part.querySelector("#count-" + i), cards = part.querySelector("#cards-" + i);
      if (count) count.value = hand.counts && name in hand.counts ? String(hand.counts[name]) : "";
      if (cards) cards.value = hand.cards && hand.cards[name] ? hand.cards[name].join(" ") : "";
    });
    var dealer = part.querySelector("select[name=dealer]");
    if (dealer) dealer.value = hand.dealer;
    var big = part.querySelector("input[name=big_one]");
    if (big) { big.checked = hand.multiplier > 1; big.value = String(hand.multiplier > 1 ? hand.multiplier : 2); }
    var plays = {};  // (a bet nobody was in is not among them)
    (hand.side_bets || []).forEach(function (p) { plays[p.bet] = p; });
    each(part, "fieldset[data-bet]", function (line) {
      var bet = line.getAttribute("data-bet"), play = plays[bet] || {players: [], winner: null};
      line.removeAttribute("data-dead-empty");
      tick("input[name='sb-" + bet + "-in']", function (v) { return play.players.indexOf(v) >= 0; });
      tick("input[name='sb-" + bet + "-winner']", function (v) { return v === (play.winner || ""); });
      var suit = line.querySelector("select[name='sb-" + bet + "-suit']");
      if (suit && play.suit) suit.value = play.suit;
    });
  }
  function startCorrecting(number) {
    return ask({op: "events", events: night.events, correcting: number}).then(function (read) {
      var c = read.correcting;
      if (!c || c.error) return;
      correctMode(null);
      drawFields(c, "correct " + c.number + " " + c.version, function (part) { fillHand(part, c); });
      correctMode(c);
      document.getElementById("record-title").scrollIntoView();
    });
  }
  function stopCorrecting() {
    correctMode(null);
    drawnFor = "";
    drawHandFields(shown);
  }
  cancel.addEventListener("click", stopCorrecting);

  // A change the server asks the reason of (a hand voided, a payment undone), as its own
  // pages ask it: folded away until opened; no reason, nothing kept.
  function reasonForm(id, open, ask, button, event) {
    var box = el("details", "reason-form"), form = el("form", "stack");
    box.appendChild(el("summary", "", open));
    var label = el("label", "", ask), input = el("input");
    input.name = "reason";
    input.id = label.htmlFor = id;
    input.maxLength = 500;
    input.required = true;
    var field = el("p", "field");
    field.appendChild(label);
    field.appendChild(input);
    form.appendChild(field);
    form.appendChild(el("button", "btn", button));
    form.noValidate = true;
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var reason = input.value.trim();
      if (!reason) { clearProblems(form); showAll(form, [[input.id, ask]], say); return; }
      add({add: event(reason)}, form);
    });
    box.appendChild(form);
    return box;
  }

  // Each player's total as the phone counts the night (kept with it: what the server's totals
  // are compared to once it holds the night, from whichever page sends it).
  function totalsOf(read) {
    var totals = {};
    read.rows.forEach(function (r) { totals[r.name] = r.total.data; });
    return totals;
  }
  function count() {
    return ask({op: "events", events: night.events}).then(function (read) {
      if (read.error) throw new Error(read.error);
      var kept = !!night.totals;
      night.totals = totalsOf(read);
      if (!kept) put(night);  // (a night kept before its totals were: the home page compares too)
      draw(read);
      return read;
    });
  }

  // One more event, checked by the core against the night first: kept, or its refusal shown.
  // One at a time, each against the night as the last one left it; a form sent again while
  // its change is still being checked (a double tap on Save or Paid in full) is that same
  // change, not another (two taps kept the hand, or the payment, twice).
  var adding = Promise.resolve();
  function add(request, form) {
    if (form.hasAttribute("data-adding")) return Promise.resolve(false);
    form.setAttribute("data-adding", "");
    var done = adding.then(function () { return addNow(request, form); });
    adding = done.catch(function () {});
    function free() { form.removeAttribute("data-adding"); }
    done.then(free, free);
    return done;
  }
  function addNow(request, form) {
    request.op = "events";
    request.events = night.events;
    clearProblems(form);
    return ask(request).then(function (read) {
      if (!read.added) {  // the form's own problems (codes by field), else the core's refusal
        var found = Object.keys(read.problems || {}).map(function (field) {
          return [field, window.TonkPage.problem(say, read.problems[field], field)];
        });
        if (!found.length) {
          var refusal = read.refusal || {error: read.error, field: read.field};
          var reason = refusal.field === "reason" && form.querySelector("[name=reason]");
          found.push([reason ? reason.id : refusal.field,
                      say("problem-" + refusal.error) || refusal.error]);
        }
        showAll(form, found, say);
        return false;
      }
      var event = {id: hex(), seq: night.events.length + 1};
      Object.keys(read.added).forEach(function (k) { event[k] = read.added[k]; });  // (its id)
      event.seq = night.events.length + 1;
      night.events.push(event);
      night.totals = totalsOf(read);
      return put(night).then(function () {
        draw(read);
        send();
        return true;
      });
    });
  }

  handForm.addEventListener("submit", function (e) {
    e.preventDefault();
    var request = correcting ? {correct: pairsOf(handForm)} : {hand: pairsOf(handForm)};
    add(request, handForm).then(function (kept) {
      if (!kept) return;
      if (correcting) correctMode(null);
      drawnFor = "";  // fresh fields for the next hand
      drawHandFields(shown);
      window.scrollTo(0, 0);
    });
  });
  var join = document.getElementById("night-join"), leaving = document.getElementById("night-leave");
  var paidForm = document.getElementById("night-paid");
  // The night as a file to keep (where the browser may clear what the phone keeps).
  document.getElementById("night-file").addEventListener("click", function () {
    var file = new Blob([JSON.stringify({night: uid, name: night.name, events: night.events}, null, 1)],
                        {type: "application/json"});
    var a = el("a");
    a.href = URL.createObjectURL(file);
    a.download = "tonk-night-" + uid + ".json";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
  });
  join.addEventListener("submit", function (e) {
    e.preventDefault();
    var name = join.querySelector("input").value.replace(/\s+/g, " ").trim();
    add({add: {kind: "joined", player: name}}, join).then(function (kept) {
      if (kept) join.reset();
    });
  });
  leaving.addEventListener("submit", function (e) {
    e.preventDefault();
    add({add: {kind: "left", player: leaving.querySelector("select").value}}, leaving).then(function (kept) {
      if (kept) leaving.querySelector("details").open = false;
    });
  });

  // -- sending, when there is a signal (sendNight: nightstore.js) ---------------------------------------
  function send() {
    if (waitingOf(night) && !offline()) document.getElementById("night-status").textContent = sayOut("sending");
    return sendNight(night).then(function () {
      if (night.page && !waitingOf(night) && !night.differs) {
        root.removeAttribute("data-night");
        document.getElementById("night-status").textContent = sayOut("sent");
        window.TonkPage.sayNext(night.page, sayOut("sent"));  // said again on the session's page
        location.replace(night.page);
      } else status();
    }, function () { status(); /* no answer: sent again later */ });
  }
  // The share view's link and QR, made from the token the night started with (a night
  // started before the phone made one has none: the server makes it when it takes it).
  function drawShare() {
    var token = night.events[0] && night.events[0].share_token, box = document.getElementById("night-share");
    if (!token) return;
    if (!window.qrcode) {  // (its script comes after this one: drawn once the page has loaded)
      if (document.readyState !== "complete") window.addEventListener("load", drawShare, {once: true});
      return;
    }
    var url = location.origin + "/s/" + token, qr = window.qrcode(0, "M");
    qr.addData(url);
    qr.make();
    document.getElementById("share-url").value = url;
    document.getElementById("night-share-qr").innerHTML = qr.createSvgTag(
      {cellSize: 3, margin: 12, scalable: true, title: {text: say("qr"), id: "night-qr-title"}});
    box.setAttribute("data-share-token", token);
    box.hidden = false;
  }
  window.addEventListener("online", function () { status(); send(); });
  window.addEventListener("offline", function () { if (night) status(); });

  get(uid).then(function (kept) {
    if (!kept) { document.getElementById("night-missing").hidden = false; return null; }
    night = kept;
    if (night.page && !waitingOf(night) && !night.differs) { location.replace(night.page); return null; }
    keepForGood();
    // What the phone holds shows at once; the counting follows when the core has started.
    root.setAttribute("data-night", "phone");
    page.hidden = false;
    document.getElementById("night-name").textContent = night.name || uid;
    status();
    drawShare();
    return count().then(function () { return send(); });
  }).catch(function (error) {
    var problem = document.getElementById("night-problem");
    problem.hidden = false;
    problem.textContent = String(error && error.message || error);
  });
})();
