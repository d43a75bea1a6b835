/* Tonk Tally: a little help on top of forms that work without it.
   Hand form: show only the facts the chosen end needs, check counts as they are typed,
   and a card picker that fills the count. New session: name the first-dealer choices.
   Dispute checker: another preset redraws the form for its rules (what the button does).
   Every form: its button rests while it is sent. */
(function () {
  "use strict";

  function each(root, selector, fn) {
    Array.prototype.forEach.call(root.querySelectorAll(selector), fn);
  }
  // A script's words, kept in an element's data- attributes (app/web/sessions/templates/sessions/_offline_words.html
  // and the like), with {name} filled in; and a new element: what the phone's scripts
  // (counting.js, offline.js, night.js) write with, through window.TonkPage.
  function wordsOf(id) {
    var words = document.getElementById(id);
    return function (name, values) {
      var text = (words && words.getAttribute("data-" + name)) || "";
      Object.keys(values || {}).forEach(function (k) { text = text.split("{" + k + "}").join(values[k]); });
      return text;
    };
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // A word for the page a script leads to (night.js: a night just sent, before it goes to
  // the night's session), shown there once, as the server's flashed messages are: the page
  // that said it is gone before it could be read.
  var SAID = "tonk-said-next";
  function sayNext(page, text) {
    try { sessionStorage.setItem(SAID, JSON.stringify({path: new URL(page, location.href).pathname, text: text})); }
    catch (e) { /* no storage: the page goes on without the word */ }
  }
  try {
    var said = JSON.parse(sessionStorage.getItem(SAID) || "null");
    var mark = document.getElementById("offline-mark");
    if (said && said.path === location.pathname && mark) {
      sessionStorage.removeItem(SAID);
      var flash = el("p", "flash ok", said.text);
      flash.setAttribute("role", "status");
      mark.parentNode.insertBefore(flash, mark.nextSibling);
    }
  } catch (e) { /* no storage, or not what this script wrote: nothing to show */ }
  // Copy a field's text (share.js copies with it too): through the clipboard where the
  // page may use it, else selected and copied the old way; done() once it is copied.
  function copyText(input, done) {
    function fallback() {
      input.select();
      try { document.execCommand("copy"); done(); } catch (e) { /* selected: copy by hand */ }
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, fallback);
    } else {
      fallback();
    }
  }
  // A form's own problem in the page's words (say: wordsOf's, with problem-<code>), naming
  // whose count or which rule it is about, as the server's pages do (forms.problem_said).
  function problemSaid(say, code, field) {
    var target = document.getElementById(field), row = target && target.closest(".count-row");
    var label = document.querySelector('label[for="' + CSS.escape(field) + '"]');
    return (say("problem-" + code, {player: row ? row.getAttribute("data-name") : "",
                                    option: label ? label.textContent.trim() : ""}) || code);
  }
  // What was typed in a form, as text: the same form sent again unchanged is the same text.
  // Not typed: its tokens, offline.js's outbox_ fields (what was entered) and "after" (what
  // the page saw of the session when it was fetched).
  function typedIn(form) {
    var parts = [];
    new FormData(form).forEach(function (v, k) {
      if (k !== "once" && k !== "csrf_token" && k !== "after" && k.indexOf("outbox_") !== 0) parts.push(k + "=" + v);
    });
    return parts.join("&");
  }
  window.TonkPage = {words: wordsOf, el: el, sayNext: sayNext, copy: copyText, problem: problemSaid,
                     typed: typedIn};

  function handForm(form, cfg) {
    var copies = {}, worth = {}, picker = null, current = null;
    cfg.deck.forEach(function (c) { copies[c[0]] = (copies[c[0]] || 0) + 1; worth[c[0]] = c[1]; });

    function checked(name) {
      var el = form.querySelector('input[name="' + name + '"]:checked');
      return el ? el.value : "";
    }
    function cardsOf(row) {
      var text = row.querySelector(".cards").value.toUpperCase().replace(/,/g, " ").trim();
      return text ? text.split(/\s+/) : [];
    }
    function total(cards) {
      return cards.reduce(function (sum, c) { return sum + (worth[c] || 0); }, 0);
    }
    function check(row) {
      var input = row.querySelector(".count"), value = input.value.trim(), msg = "";
      if (value !== "") {
        var deal = checked("kind") === "deal";
        if (/^-\d+$/.test(value)) {
          msg = cfg.msg.negative.split("{player}").join(row.getAttribute("data-name"))
            .split("{n}").join(value);
        } else if (!/^\d+$/.test(value)) msg = cfg.msg.whole.split("{player}").join(row.getAttribute("data-name"));
        else if (+value > cfg.maxCount) msg = cfg.msg.max;
        else if ((deal ? cfg.dealTotals : cfg.playCounts).indexOf(+value) < 0) {
          msg = (deal ? cfg.msg.deal : cfg.msg.play).replace("{n}", value);
        }
      }
      // The server already says what is wrong with the value it was sent: one message a field.
      if (input.value === input.defaultValue && document.getElementById("err-" + input.id)) msg = "";
      row.querySelector(".live").textContent = msg;
      input.setAttribute("aria-invalid", msg ? "true" : "false");
    }
    function update() {
      var kind = checked("kind"), who = checked("player"), mode = cfg.modes[kind] || "none";
      each(form, "[data-kinds]", function (el) {
        el.hidden = el.getAttribute("data-kinds").split(" ").indexOf(kind) < 0;
      });
      each(form, ".count-row", function (row) {
        row.hidden = mode === "losers" && row.getAttribute("data-name") === who;
        check(row);
      });
      // A dead hand (thrown in) is not dealt out: nobody is in its high-card bet, unless
      // the scorekeeper ticked someone themselves; so nobody won it either (a winner who
      // did not bet is refused: docs/rules.md §9).
      each(form, "[data-dead-empty]:not([data-touched])", function (set) {
        each(set, "input[name$=-in]", function (box) { box.checked = kind !== "dead"; });
        var nobody = set.querySelector("input[name$=-winner][value='']");
        if (kind === "dead" && nobody) nobody.checked = true;
      });
    }

    function usedElsewhere(card) {
      var n = 0;
      each(form, ".count-row", function (row) {
        if (row !== current) cardsOf(row).forEach(function (c) { if (c === card) n += 1; });
      });
      return n;
    }
    function refresh() {
      if (!current) return;
      var mine = cardsOf(current);
      each(picker, "button[data-card]", function (b) {
        var card = b.getAttribute("data-card");
        var have = mine.filter(function (c) { return c === card; }).length;
        var on = have > +b.getAttribute("data-copy");
        b.setAttribute("aria-pressed", on ? "true" : "false");
        b.disabled = !on && (have + usedElsewhere(card) >= copies[card] ||
                             mine.length >= cfg.handSize);
      });
    }
    function setCards(row, cards) {
      row.querySelector(".cards").value = cards.join(" ");
      row.querySelector(".count").value = cards.length ? String(total(cards)) : "";
      check(row);
    }
    function toggle(card, copy) {
      var mine = cardsOf(current), have = mine.filter(function (c) { return c === card; }).length;
      if (have > copy) mine.splice(mine.lastIndexOf(card), 1);
      else mine.push(card);
      setCards(current, mine);
      refresh();
    }
    function label(card) {
      if (card === "JOKER") return cfg.msg.joker;
      return card.slice(0, -1) + { S: "♠", H: "♥", D: "♦", C: "♣" }[card.slice(-1)];
    }
    function build() {
      var seen = {}, suit = null;
      picker = document.createElement("div");
      picker.className = "picker";
      cfg.deck.forEach(function (c) {
        var card = c[0], copy = seen[card] || 0, b = document.createElement("button");
        seen[card] = copy + 1;
        b.type = "button";
        b.textContent = label(card);
        b.setAttribute("data-card", card);
        b.setAttribute("data-copy", String(copy));
        if (/[HD]$/.test(card)) b.className = "red";
        if (card === "JOKER") b.className = "joker";
        // each suit (and the jokers) starts a row of its own: no row mixes two suits
        var its = card === "JOKER" ? "J" : card.slice(-1);
        if (its !== suit) b.classList.add("suit-start");
        suit = its;
        b.addEventListener("click", function () { toggle(card, copy); });
        picker.appendChild(b);
      });
      var done = document.createElement("button");
      done.type = "button";
      done.className = "btn done";
      done.textContent = cfg.msg.done;
      done.addEventListener("click", function () { picker.remove(); current = null; });
      picker.appendChild(done);
    }
    function open(row) {
      if (!picker) build();
      if (current === row) { picker.remove(); current = null; return; }
      current = row;
      row.appendChild(picker);
      refresh();
    }

    each(form, ".count-row", function (row) {
      var pick = row.querySelector(".pick"), count = row.querySelector(".count");
      pick.hidden = false;
      pick.addEventListener("click", function () { open(row); });
      count.addEventListener("input", function () {
        var cards = cardsOf(row);
        if (cards.length && total(cards) !== +count.value) row.querySelector(".cards").value = "";
        check(row);
        refresh();
      });
      // Typed cards fill the count as they are typed; the text itself is left as typed
      // (rewriting it would eat the space or comma just typed), and tidied on leaving it.
      var typed = row.querySelector(".cards");
      typed.addEventListener("input", function () {
        var cards = cardsOf(row);
        if (cards.length && cards.every(function (c) { return c in worth; })) {
          row.querySelector(".count").value = String(total(cards));
          check(row);
        }
        refresh();
      });
      typed.addEventListener("change", function () {
        var cards = cardsOf(row);
        if (cards.every(function (c) { return c in worth; })) setCards(row, cards);
        refresh();
      });
    });
    form.addEventListener("change", function (e) {
      var name = e.target.name, set = e.target.closest("[data-dead-empty]");
      if (set && /-in$/.test(name)) set.setAttribute("data-touched", "1");
      if (name === "kind" || name === "player") update();
    });
    update();
  }

  function firstDealer(select) {
    function label() {
      each(select, "option", function (o) {
        var input = document.getElementById("player-" + o.value);
        o.textContent = (input && input.value.trim()) || o.getAttribute("data-seat");
      });
    }
    each(document, "input[id^=player-]", function (input) {
      input.addEventListener("input", label);
    });
    label();
  }

  // Push-ups take no stake: the stake field hides while the rules chosen are push-ups.
  function stakeFollowsScoring(preset, fields) {
    var scoring = document.getElementById("opt-scoring");
    function show() {
      var chosen = scoring && scoring.value ? scoring.value
        : preset.options[preset.selectedIndex].getAttribute("data-scoring");
      fields.forEach(function (f) { f.hidden = chosen === "push_ups"; });
    }
    preset.addEventListener("change", show);
    if (scoring) scoring.addEventListener("change", show);
    show();
  }

  function presetSummary(select, summary) {
    select.addEventListener("change", function () {
      summary.textContent = select.options[select.selectedIndex].getAttribute("data-summary");
    });
  }

  // A form is sent once: its button says so while it saves (the server also keeps each
  // form's one-time token, so a second tap that gets through still saves nothing twice).
  function sendOnce(form) {
    form.addEventListener("submit", function () {
      if (form.getAttribute("data-sending")) return;
      form.setAttribute("data-sending", "1");
      setTimeout(function () {  // after the button's own value has gone with the form
        each(form, "button:not([type=button])", function (b) {
          b.disabled = true;
          b.setAttribute("aria-busy", "true");
        });
      }, 0);
    });
  }
  each(document, 'form[method="post"]', sendOnce);
  // A form refused where it was sent is shown with its page's own address (data-address):
  // a reload then reads that page rather than sending the form again.
  var address = document.documentElement.getAttribute("data-address");
  if (address && window.history && history.replaceState) history.replaceState(null, "", address);

  // Back to a form already sent, and "Save" again: the browser may fetch the page anew (a
  // new one-time token) yet put back what was typed. The same form sent unchanged after a
  // back or forward step goes with the token it was first sent with, so it is saved once.
  function sameFormAgain(form) {
    var once = form.querySelector('input[name="once"]');
    if (!once || !window.sessionStorage) return;
    var key = "tonk-sent:" + (form.getAttribute("action") || location.pathname);
    var nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    var back = nav && nav.type === "back_forward";
    function typed() { return typedIn(form); }
    form.addEventListener("submit", function () {
      var sent = null;
      try { sent = JSON.parse(sessionStorage.getItem(key)); } catch (e) { sent = null; }
      if (back && sent && sent.typed === typed()) {
        once.value = sent.once;
      } else {
        try { sessionStorage.setItem(key, JSON.stringify({once: once.value, typed: typed()})); }
        catch (e) { /* storage full or off: the server's token still guards each page */ }
      }
    });
  }
  each(document, 'form[method="post"]', sameFormAgain);
  window.addEventListener("pageshow", function () {  // back to a page kept in memory
    each(document, "form[data-sending]", function (form) {
      form.removeAttribute("data-sending");
      each(form, "button", function (b) { b.disabled = false; b.removeAttribute("aria-busy"); });
    });
  });

  function redrawOnPreset(select, button) {
    select.addEventListener("change", function () {
      if (button.form.requestSubmit) button.form.requestSubmit(button);
      else button.click();
    });
  }

  // The session page, its share view and the TV board follow the game. Under `tonk serve`
  // the server pushes: a stream of server-sent events (app/api/stream.py; its address in
  // the page's <html data-stream> as served: shared API.md) says when the
  // session (or the event) changed, and the page fetches its live part once. Where no
  // stream can be held (no EventSource, a proxy that swallows it, a server at its limit:
  // 503, or one that holds none: 204) the page asks its poll address every 1.5 s whether
  // anything changed (304 while not: one row read on the server), saying nothing of it;
  // it polls too while a dropped stream reconnects, and gives the stream up after three
  // failures in a row. A hidden page closes its stream and catches up when shown. Works on
  // any number of workers and servers: the answer comes from the database, never from
  // one process's memory.
  function follow(box) {
    var poll = box.getAttribute("data-poll"), part = box.getAttribute("data-part");
    var etag = box.getAttribute("data-etag"), status = document.getElementById("live-status");
    var streamed = document.documentElement.getAttribute("data-stream");  // (as served)
    var every = 1500, wait = every, timer = null, source = null, failures = 0;
    // an ETag is "state.language" (a session's state: id.revision.time; a board's: a
    // digest), an event's data the state
    var tagged = /^(?:W\/)?"?(.*)(\.[^."]+)"?$/.exec(etag || "");
    var language = tagged ? tagged[2] : "";
    function tagOf(value) {
      var m = /^(?:W\/)?"?(.*)(\.[^."]+)"?$/.exec(value || "");
      return m ? m[1] : "";
    }
    function streaming() { return source !== null && source.readyState === 1; }
    function later(ms) {
      clearTimeout(timer);
      if (!streaming()) timer = setTimeout(tick, ms);  // (an open stream says when)
    }
    function say(text) { if (status) status.textContent = text; }
    function failed(error) {
      // no answer at all (not an answer that is an error): the signal is gone, and
      // the page's counting may need the phone's core (counting.js)
      if (error instanceof TypeError) document.dispatchEvent(new CustomEvent("tonk:nosignal"));
      wait = Math.min(wait * 2, 15000);
      clearTimeout(timer);
      timer = setTimeout(tick, wait);
    }
    function redraw(next) {
      return fetch(part, {cache: "no-store", credentials: "same-origin"})
        .then(function (page) {
          if (!page.ok) throw new Error(String(page.status));
          // the copy the phone kept (sw.js: no signal) is not the state ``next`` names: the
          // page stays as it is and asks again (it took the copy for the news and, back
          // online, was told it had it)
          if (page.headers.get("X-Tonk-Kept")) throw new TypeError("kept on the phone");
          return page.text();
        })
        .then(function (html) {
          box.innerHTML = html;
          localTimes(box);
          etag = next;
          say(status.getAttribute("data-live-said"));
          fresh();
          wait = every;
        });
    }
    function tick() {
      if (document.hidden) return;  // asked again when the page is shown
      fetch(poll, {cache: "no-store", credentials: "same-origin",
                   headers: etag ? {"If-None-Match": etag} : {}})
        .then(function (answer) {
          if (answer.status === 404) { say(status.getAttribute("data-live-gone")); return null; }
          if (answer.status === 304) { fresh(); wait = every; later(wait); return null; }
          if (!answer.ok) throw new Error(String(answer.status));
          return redraw(answer.headers.get("ETag")).then(function () { later(wait); });
        })
        .catch(failed);
    }
    function listen() {
      if (!streamed || !window.EventSource || source || failures >= 3 || document.hidden) return;
      source = new EventSource(streamed + "?seen=" + encodeURIComponent(tagOf(etag)));
      source.onopen = function () { failures = 0; clearTimeout(timer); fresh(); };
      source.onmessage = function (event) {
        if (event.data === tagOf(etag)) return;  // (the page has it already)
        redraw('"' + event.data + language + '"').catch(failed);
      };
      source.onerror = function () {
        failures += 1;
        if (source.readyState === 2 || failures >= 3) quiet();  // closed for good: poll
        later(every);  // poll while it reconnects
      };
    }
    function quiet() {
      if (source) { source.close(); source = null; }
    }
    function fresh() { document.dispatchEvent(new CustomEvent("tonk:fresh")); }
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) { quiet(); clearTimeout(timer); return; }
      clearTimeout(timer);
      tick();  // catch up at once, then follow again
      listen();
    });
    // The signal is back, or the phone's outbox sent hands: catch up at once (a stream
    // that may have died with the signal is opened afresh).
    window.addEventListener("online", function () {
      quiet(); failures = 0; wait = every; clearTimeout(timer); tick(); listen();
    });
    document.addEventListener("tonk:refresh", function () { wait = every; clearTimeout(timer); tick(); });
    listen();
    later(every);
  }

  // Times written in UTC by the server, shown in the phone's own time, in the form the
  // server writes them (app.web.shared.site.when: the date medium, the time short).
  var moment = new Intl.DateTimeFormat(document.documentElement.lang || [],
                                       {dateStyle: "medium", timeStyle: "short"});
  function localTimes(root) {
    each(root, "time[datetime]", function (t) {
      var when = new Date(t.getAttribute("datetime"));
      if (!isNaN(when)) t.textContent = moment.format(when);
    });
  }

  // Copy the link, or hand it to the phone's own share sheet where it has one.
  function shareButtons() {
    each(document, "button[data-copy]", function (b) {
      var input = document.getElementById(b.getAttribute("data-copy"));
      var said = document.getElementById(b.getAttribute("data-said") || "share-said");
      if (!input || !(navigator.clipboard || document.queryCommandSupported)) return;
      b.hidden = false;
      b.addEventListener("click", function () {
        copyText(input, function () { if (said) said.textContent = b.getAttribute("data-done") || "✓"; });
      });
    });
    each(document, "button[data-share]", function (b) {
      var input = document.getElementById(b.getAttribute("data-share"));
      if (!input || !navigator.share) return;
      b.hidden = false;
      b.addEventListener("click", function () {
        navigator.share({title: b.getAttribute("data-title") || document.title, url: input.value})
          .catch(function () { /* the sheet was closed */ });
      });
    });
  }

  // A form shown again with errors: they are listed at its top, and the first field to fix
  // has the focus (scrolled into view, above the phone's keyboard).
  var summary = document.getElementById("error-summary");
  if (summary) {
    var first = summary.querySelector("a[data-field]");
    var field = first && document.getElementById(first.getAttribute("data-field"));
    if (field) {
      var folded = field.closest("details");
      if (folded) folded.open = true;
      field.focus();
      field.scrollIntoView({block: "center"});
    } else {
      summary.setAttribute("tabindex", "-1");
      summary.focus();
    }
    each(summary, "a[data-field]", function (a) {
      a.addEventListener("click", function (e) {
        var target = document.getElementById(a.getAttribute("data-field"));
        if (!target) return;
        e.preventDefault();
        var box = target.closest("details");
        if (box) box.open = true;
        target.focus();
        target.scrollIntoView({block: "center"});
      });
    });
  }

  // The TV board shows one table's current scores at a time, turning every 8 s; the index
  // comes from the clock, so a board refreshed by follow() keeps its place in the turn.
  // A list longer than its column (the standings, the prize list: [data-pages] names its
  // items) is cut into pages that fit, shown in turn every 10 s with "Page 1 of 3": a TV
  // does not scroll. Where the column does not clip (a phone), everything shows.
  function rotate(root) {
    function show() {
      var tables = root.querySelectorAll("[data-rotate] > .board-table");
      var at = Math.floor(Date.now() / 8000) % (tables.length || 1);
      Array.prototype.forEach.call(tables, function (t, i) { t.hidden = i !== at; });
      each(root, "[data-pages]", pageThrough);
    }
    show();
    setInterval(show, 1000);
  }
  function pageThrough(column) {
    var items = Array.prototype.slice.call(column.querySelectorAll(column.getAttribute("data-pages")));
    var pager = column.querySelector(".board-pager");
    items.forEach(function (item) { item.hidden = false; });
    if (pager) pager.hidden = true;
    if (!items.length || column.scrollHeight <= column.clientHeight + 1) return;
    var words = column.getAttribute("data-pager-words") || "{n} / {m}";
    if (pager) { pager.hidden = false; pager.textContent = words.replace("{n}", "9").replace("{m}", "9"); }
    var heights = items.map(function (item) { return item.getBoundingClientRect().height; });
    var all = heights.reduce(function (a, b) { return a + b; }, 0);
    var room = column.clientHeight - (column.scrollHeight - all) - 2;
    var pages = [[]], used = 0;
    heights.forEach(function (h, i) {
      var page = pages[pages.length - 1];
      if (page.length && used + h > room) { page = []; pages.push(page); used = 0; }
      page.push(i);
      used += h;
    });
    var at = Math.floor(Date.now() / 10000) % pages.length;
    items.forEach(function (item, i) { item.hidden = pages[at].indexOf(i) < 0; });
    if (pager) pager.textContent = words.replace("{n}", String(at + 1)).replace("{m}", String(pages.length));
  }

  var live = document.getElementById("live");
  if (live && live.getAttribute("data-poll") && window.fetch) {
    localTimes(live);
    follow(live);
  }
  if (live && live.closest(".board-page")) rotate(live);
  shareButtons();

  // The core on the phone (static/core-worker.js: app/core in Pyodide), started only when
  // something needs it: counting.js asks it with no signal, for hands waiting on the phone,
  // for Save with no signal; check-offline.js for /check with no signal. Never on a page
  // loaded online with nothing waiting, but once in a phone's life: its first online visit
  // (signed in, or the checker) fetches the core and starts it, to prove the phone can; from
  // then on every page says so (<html data-counting="phone">, kept in localStorage).
  // One core for the app's tabs, kept across a tab's pages: a shared worker whose life
  // outlasts the page a little (extendedLifetime: Chrome and Chrome for Android 148), so the
  // next page of the session finds it running; a dedicated worker where there are none (a
  // core per page, stopped when the page goes). <html data-core-starts="N">: how many times
  // this page started Python (a core found running is no start).
  // window.TonkCount: ask(request) (a promise of the answer), start(), running(), and what
  // benchmarks/bench_phone.py reads: startAt, readyAt (ms on this page's clock), memory,
  // steps (the worker's own timing of each step of a start), shared, workerStarts (how many
  // times the worker this page asks has started Python: its pages' starts together).
  function theCore() {
    var root = document.documentElement, PROVEN = "tonk-core", KEPT = "tonk-core-kept";
    var port = null, worker = null, started = null, next = 1, waiting = {}, starts = 0;
    var api = {startAt: null, readyAt: null, memory: null, steps: null, shared: false,
               workerStarts: null};
    var proven = null;
    try { proven = JSON.parse(localStorage.getItem(PROVEN) || "null"); } catch (e) { proven = null; }
    if (proven) root.setAttribute("data-counting", "phone");
    root.setAttribute("data-core-starts", "0");

    function fail(error) {
      Object.keys(waiting).forEach(function (id) { waiting[id].reject(error); });
      waiting = {};
      stop();
    }
    function receive(e) {
      if (e.data.starting) {  // this page's ask started Python
        starts += 1;
        root.setAttribute("data-core-starts", String(starts));
        return;
      }
      var w = waiting[e.data.id];
      if (!w) return;
      delete waiting[e.data.id];
      if ("memory" in e.data) api.memory = e.data.memory;
      if (e.data.error) w.reject(new Error(e.data.error)); else w.resolve(e.data);
    }
    function connect() {
      if (window.SharedWorker) {
        try {
          worker = new SharedWorker("/phone/core-worker.js",
                                    {type: "module", name: "tonk-core", extendedLifetime: true});
          worker.onerror = fail;
          port = worker.port;
          port.onmessage = receive;
          port.start();
          api.shared = true;
          return;
        } catch (e) { worker = null; /* a dedicated one */ }
      }
      worker = new Worker("/phone/core-worker.js", {type: "module"});
      worker.onmessage = receive;
      worker.onerror = fail;
      port = worker;
      api.shared = false;
    }
    function send(request) {
      return new Promise(function (resolve, reject) {
        var id = next++;
        waiting[id] = {resolve: resolve, reject: reject};
        port.postMessage({id: id, request: request});
      });
    }
    function stop() {
      if (api.shared && port) port.close(); else if (worker) worker.terminate();
      port = worker = started = null;
    }
    function start() {
      if (started) return started;
      api.startAt = performance.now();
      if (!port) connect();
      started = send(null).then(function (said) {
        api.readyAt = performance.now();
        api.workerStarts = said.starts;
        api.steps = said.steps;
        root.setAttribute("data-counting", "phone");
        try {
          localStorage.setItem(PROVEN, JSON.stringify({version: said.version, at: new Date().toISOString()}));
        } catch (e) { /* said on this page only */ }
        proven = {version: said.version};
      });
      started.catch(function () { started = null; });  // the next ask tries again
      return started;
    }
    // Leaving the page: a dedicated worker stops at once, so its start (seconds of CPU)
    // never slows the next page's first frames; a shared one lives on for the next page.
    window.addEventListener("pagehide", stop);
    function ask(request) {
      request.lang = document.documentElement.lang || "en";
      return start().then(function () { return send(request); })
        .then(function (said) { return JSON.parse(said.answer); });
    }

    // The phone keeps what it needs (the service worker's cache): each tab checks once, from
    // the bundle's list (its files come from the cache: no byte on the wire when kept). A
    // bundle with another Pyodide than the one proven asks for the proof again.
    function keep(bundle) {
      var urls = bundle.cache.concat(Object.keys(bundle.files).map(function (k) { return bundle.files[k]; }));
      urls.push("/phone/core-worker.js");
      return Promise.all(urls.map(function (url) {
        return fetch(url, {credentials: "same-origin", priority: "low"});
      }));
    }
    function after(work) {  // the page loaded, and the phone idle
      var later = function () { (window.requestIdleCallback || setTimeout)(work); };
      if (document.readyState === "complete") later(); else window.addEventListener("load", later);
    }
    var signedIn = document.body.hasAttribute("data-account");
    var checker = !!document.getElementById("check-words");
    if (window.fetch && navigator.onLine && (signedIn || checker) &&
        !document.body.getAttribute("data-offline-as-of")) {
      after(function () {
        var kept = null;
        try { kept = sessionStorage.getItem(KEPT); } catch (e) { kept = null; }
        if (proven && kept) return;
        var ready = navigator.serviceWorker ? navigator.serviceWorker.ready : Promise.resolve();
        ready.then(function () {
          return fetch("/phone/core.json", {credentials: "same-origin"});
        }).then(function (r) { return r.json(); }).then(function (bundle) {
          if (proven && proven.version !== bundle.version) proven = null;
          // (the first visit's proof fetches the files itself, through the service worker)
          return (proven ? keep(bundle) : start()).then(function () {
            if (navigator.serviceWorker && navigator.serviceWorker.controller) {
              try { sessionStorage.setItem(KEPT, "1"); } catch (e) { /* asked again */ }
            }
          });
        }).catch(function () { /* the next page tries again */ });
      });
    }

    api.ask = ask;
    api.start = start;
    api.running = function () { return !!started; };
    return api;
  }
  if (window.Worker && window.Promise) window.TonkCount = theCore();

  // The hand fields drawn on the phone from their prototype (app/web/shared/templates/_hand.html) into
  // ``part``, for the players and what the rules ask (``read``: the core's answer of the
  // typed rules, its ``players``, ``asks`` and ``picker``): the dispute checker's with no
  // signal (check-offline.js) and a night of the phone's own (night.js). Returns the card
  // picker's config, for TonkHandForm.
  function handStep(part, proto, read) {
    part.innerHTML = proto.innerHTML.replace(/@@seat(\d+)@@/g, function (m, i) {
      return String(read.players[+i] || "").replace(/[&<>"']/g, function (c) {
        return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c];
      });
    });
    each(part, "[data-seat]", function (e) {
      if (+e.getAttribute("data-seat") >= read.players.length) e.remove();
    });
    each(part, "[data-ask]", function (e) {
      var asked = e.getAttribute("data-ask").split(" ").some(function (k) { return read.asks[k]; });
      if (!asked) e.remove();
    });
    each(part, "[data-mode]", function (e) {
      var kindMode = e.getAttribute("data-mode").split(" ");
      if (read.asks.modes[kindMode[0]] !== kindMode[1]) e.remove();
    });
    each(part, "fieldset.counts", function (f) { f.setAttribute("data-kinds", read.asks.count_kinds); });
    each(part, "input.count", function (i) { i.max = String(read.picker.maxCount); });
    var spot = part.querySelector("#hand-config"), msg = JSON.parse(spot.textContent).msg;
    msg.max = msg.max.split("{max}").join(String(read.picker.maxCount));
    msg.full = msg.full.split("{size}").join(String(read.picker.handSize));
    var config = {msg: msg};
    Object.keys(read.picker).forEach(function (k) { config[k] = read.picker[k]; });
    spot.textContent = JSON.stringify(config);
    return config;
  }

  // (the dispute checker's hand fields sit in their own part of the form, drawn again on the
  // phone with no signal: check-offline.js calls TonkHandForm on the new part)
  window.TonkHandForm = handForm;
  window.TonkHandStep = handStep;
  var config = document.getElementById("hand-config");
  var handEl = document.getElementById("hand-form");
  if (config && handEl) handForm(config.closest("[data-hand-root]") || handEl, JSON.parse(config.textContent));
  var dealer = document.getElementById("first_dealer");
  if (dealer) firstDealer(dealer);
  var preset = document.getElementById("preset"), summary = document.getElementById("preset-summary");
  if (preset && summary) presetSummary(preset, summary);
  var stakes = Array.prototype.slice.call(document.querySelectorAll("[data-stake]"));
  if (preset && stakes.length) stakeFollowsScoring(preset, stakes);
  var setup = document.getElementById("setup");
  if (preset && setup) redrawOnPreset(preset, setup);
})();
