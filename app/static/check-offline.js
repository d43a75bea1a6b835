/* The dispute checker (/check) with no signal: both steps of its form work on the phone, by
   the same core as the server (counting.js's TonkCount.ask, in the Web Worker).

   - Setup (players, stake, house rules): the core reads the form as the server does (op
     check_form) and says what the hand fields ask under those rules; the page draws them
     from #check-hand (every part any rules ask for, a seat for each placeholder name),
     keeping only what the rules ask, one seat a player, and what was already typed.
   - The hand: the same reading gives the hand; the core's compare op rules it under the
     table's own rules and every preset. The page shows the ruling (outcome, explanation,
     payments with the rule that made each), each player's net ([data-player][data-net],
     as the API writes money) and the hand under every other house rule.
   With a signal the form is sent as ever; if that fails for want of network the service
   worker answers with the checker as kept, and this script checks what was sent. */
(function () {
  "use strict";
  var form = document.getElementById("hand-form");
  var proto = document.getElementById("check-hand");
  var words = document.getElementById("check-words");
  var setup = document.getElementById("setup");
  if (!form || !proto || !words || !setup || !window.Promise) return;
  var lang = document.documentElement.lang || "en";
  var SENT = "tonk-check-sent";

  function say(name, values) {
    var text = words.getAttribute("data-" + name) || "";
    Object.keys(values || {}).forEach(function (k) { text = text.split("{" + k + "}").join(values[k]); });
    return text;
  }
  function outcomeWord(outcome) {
    var all = document.getElementById("check-words");
    return (all && all.getAttribute("data-outcome-" + outcome)) || outcome;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function each(root, selector, fn) {
    Array.prototype.forEach.call(root.querySelectorAll(selector), fn);
  }
  function pairs() {
    var out = [];
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrf_token" && name !== "step") out.push([name, String(value)]);
    });
    return out;
  }

  // -- amounts as the pages write them (app/web/present.py's amount and score) ----------------
  function amount(value, scoring) {
    var places = scoring === "money" ? 2 : 0;
    return new Intl.NumberFormat(lang, {minimumFractionDigits: places,
                                        maximumFractionDigits: places}).format(Math.abs(+value));
  }
  function score(value, scoring) {
    var span = el("span", "amt");
    if (scoring === "push_ups") { span.textContent = amount(value, scoring); return span; }
    var n = +value;
    span.classList.add(n > 0 ? "pos" : n < 0 ? "neg" : "zero");
    span.textContent = (n > 0 ? "+" : n < 0 ? "\u2212" : "") + amount(value, scoring);
    return span;
  }
  function scoringOf(rules) {
    if (rules && typeof rules === "object") return rules.scoring || "money";
    var option = document.querySelector('#preset option[value="' + CSS.escape(String(rules)) + '"]');
    return (option && option.getAttribute("data-scoring")) || "money";
  }

  // -- what the phone says beside the form ---------------------------------------------------
  function status(text, alert) {
    var box = document.getElementById("check-phone");
    if (!text) { if (box) box.remove(); return; }
    if (!box) {
      box = el("p", "phone-note hint");
      box.id = "check-phone";
      form.insertBefore(box, form.firstChild);
    }
    box.setAttribute("role", alert ? "alert" : "status");
    box.classList.toggle("err", !!alert);
    box.textContent = text;
  }
  function clearProblems() {
    each(form, "p.err[data-phone]", function (p) { p.remove(); });
    each(document, "#error-summary", function (s) { s.remove(); });
    each(form, "p.err[id^=err-]", function (p) { p.remove(); });
    each(form, "[aria-invalid=true]", function (i) { i.removeAttribute("aria-invalid"); });
  }
  // Each problem beside its field (the server's places: err-<field>), else at the top.
  function showProblems(read) {
    var found = [];
    Object.keys(read.problems || {}).forEach(function (field) {
      found.push([field, window.TonkPage.problem(say, read.problems[field], field)]);
    });
    Object.keys(read.refused || {}).forEach(function (field) { found.push([field, read.refused[field]]); });
    found.forEach(function (f) {
      var target = document.getElementById(f[0]) || document.getElementById(f[0] + "-0") ||
        form.querySelector('[name="' + CSS.escape(f[0]) + '"]');
      var note = el("p", "err", f[1]);
      note.setAttribute("data-phone", "1");
      note.id = "err-" + f[0];
      var place = target && (target.closest(".field, fieldset, .count-row, p") || target);
      if (place && form.contains(place)) place.appendChild(note);
      else form.insertBefore(note, form.firstChild);
      if (target) target.setAttribute("aria-invalid", "true");
    });
    return found.length;
  }

  // -- the hand fields for these players and rules -------------------------------------------
  function typedInto(root, typed) {
    typed.forEach(function (pair) {
      each(root, '[name="' + CSS.escape(pair[0]) + '"]', function (input) {
        if (input.type === "radio" || input.type === "checkbox") {
          if (input.value === pair[1]) input.checked = true;
        } else if (input.tagName === "SELECT") {
          if (input.querySelector('option[value="' + CSS.escape(pair[1]) + '"]')) input.value = pair[1];
        } else if (input.type !== "hidden") {
          input.value = pair[1];
        }
      });
    });
  }
  function draw(read, typed) {
    var step = document.getElementById("hand-step");
    var part = el("div");
    part.id = "hand-step";
    part.setAttribute("data-hand-root", "");
    var ready = read.players.length > 0 && !(read.refused || {}).players;
    setup.textContent = setup.getAttribute(ready ? "data-again" : "data-first");
    setup.classList.toggle("primary", !ready);
    setup.classList.toggle("big", !ready);
    if (ready) {
      window.TonkHandStep(part, proto, read);
      typedInto(part, typed);
    }
    step.parentNode.replaceChild(part, step);
    if (ready && window.TonkHandForm) window.TonkHandForm(part, JSON.parse(part.querySelector("#hand-config").textContent));
    return ready;
  }

  // -- the ruling ----------------------------------------------------------------------------
  function ruling(read, answer) {
    each(document, "#ruling, section.permalink, section.compare, #phone-ruling", function (s) { s.remove(); });
    var own = answer.results[0], result = own.result, scoring = scoringOf(own.rules);
    var players = read.players;
    var box = el("div");
    box.id = "phone-ruling";
    box.setAttribute("data-counting", "phone");
    var section = el("section", "ruling");
    section.id = "ruling";
    section.appendChild(el("p", "phone-note hint", say("checked")));
    var title = el("h2", "", say("ruling") + ": " + outcomeWord(result.outcome) +
                   (result.winners.length ? " · " + result.winners.join(", ") : ""));
    title.tabIndex = -1;
    section.appendChild(title);
    var explain = el("ul", "explain");
    result.explanation.forEach(function (line) { explain.appendChild(el("li", "", line)); });
    section.appendChild(explain);
    section.appendChild(el("h3", "", say("payments")));
    if (result.payments.length) {
      var list = el("ul", "payments");
      result.payments.forEach(function (p) {
        var li = el("li");
        li.appendChild(el("span", "who", p.from));
        li.appendChild(document.createTextNode(" → "));
        li.appendChild(el("span", "who", p.to));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("strong", "amt", amount(p.amount, scoring)));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("span", "rule", p.rule));
        list.appendChild(li);
      });
      section.appendChild(list);
    } else {
      section.appendChild(el("p", "", say("nobody")));
    }
    var values = result.net || result.pushed || {}, nets = el("ul", "nets");
    players.forEach(function (name) {
      if (!(name in values)) return;
      var li = el("li");
      li.setAttribute("data-player", name);
      li.setAttribute("data-net", String(values[name]));
      li.appendChild(el("span", "who", name));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(score(values[name], scoring));
      nets.appendChild(li);
    });
    section.appendChild(nets);
    box.appendChild(section);

    var compare = el("section", "compare");
    compare.appendChild(el("h2", "", say("compare")));
    compare.appendChild(el("p", "hint", say("compare-hint")));
    var scroll = el("div", "scroll");
    scroll.tabIndex = 0;
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", say("region"));
    var table = el("table", "rulings"), head = el("tr"), body = el("tbody");
    [say("house-rules"), say("ruling-column")].concat(players).forEach(function (h) { head.appendChild(el("th", "", h)); });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    answer.results.forEach(function (r) {
      var tr = el("tr", r.own ? "own" : ""), th = el("th", "", r.title);
      th.setAttribute("scope", "row");
      if (r.note) th.appendChild(el("small", "", r.note));
      tr.appendChild(th);
      if (r.error) {
        var cant = el("td", "cant", say("cannot", {why: r.error}));
        cant.colSpan = players.length + 1;
        tr.appendChild(cant);
      } else {
        var row = r.result, rowScoring = scoringOf(r.rules);
        var what = el("td", r.differs.winners ? "diff" : "", outcomeWord(row.outcome) +
                      (row.winners.length ? " · " + row.winners.join(", ") : ""));
        if (r.differs.winners) { what.appendChild(document.createTextNode(" ")); what.appendChild(el("span", "badge", say("differs"))); }
        tr.appendChild(what);
        var cells = row.net || row.pushed || {};
        players.forEach(function (name) {
          var td = el("td", "num" + (r.differs.players.indexOf(name) >= 0 ? " diff" : ""));
          td.setAttribute("data-name", name);
          if (name in cells) td.appendChild(score(cells[name], rowScoring)); else td.textContent = "–";
          tr.appendChild(td);
        });
      }
      body.appendChild(tr);
    });
    table.appendChild(body);
    scroll.appendChild(table);
    compare.appendChild(scroll);
    box.appendChild(compare);
    var before = document.getElementById("change") || form;
    before.parentNode.insertBefore(box, before);
    title.focus();
    section.scrollIntoView({block: "start"});
  }

  // -- the two steps, on the phone -----------------------------------------------------------
  // Either step draws the hand fields for the players and rules typed, as the server's page
  // does; setup says only what is wrong with them, the hand step rules the hand.
  function onPhone(step, typed) {
    clearProblems();
    status(say("checking"));
    return window.TonkCount.ask({op: "check_form", fields: typed}).then(function (read) {
      if (read.error) throw new Error(read.error);
      var ready = draw(read, typed);
      status("");
      if (step !== "check" || !ready) {
        var table = {};
        Object.keys(read.refused).forEach(function (f) {
          if (f === "players" || f === "preset" || f.indexOf("opt-") === 0) table[f] = read.refused[f];
        });
        if (!read.players.length) table.players = say("no-players");
        var options = {};
        Object.keys(read.problems).forEach(function (f) {
          if (f.indexOf("opt-") === 0) options[f] = read.problems[f];
        });
        showProblems({problems: options, refused: table});
        return null;
      }
      if (showProblems(read)) return null;
      return window.TonkCount.ask({op: "compare", hand: read.hand}).then(function (answer) {
        var own = answer.results && answer.results[0];
        var refusal = answer.error ? answer : own && own.error ? own : null;
        if (refusal) {
          var at = {};
          at[refusal.field || "form"] = refusal.error;
          showProblems({refused: at});
          return null;
        }
        ruling(read, answer);
        return answer;
      });
    }).catch(function (error) {
      if (window.console) console.error(error);
      status(say("cannot-yet"), true);
    });
  }

  form.addEventListener("submit", function (e) {
    var step = e.submitter && e.submitter.name === "step" ? e.submitter.value : "setup";
    var typed = pairs();
    if (navigator.onLine) {  // sent as ever; if it fails the worker gives back this page
      try { sessionStorage.setItem(SENT, JSON.stringify({step: step, fields: typed})); } catch (x) { /* none */ }
      return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();  // (not "sending": the phone answers)
    onPhone(step, typed);
  }, true);

  // The form sent with a signal that failed: the worker answered with this page as kept.
  document.addEventListener("DOMContentLoaded", function () {
    var sent = null;
    try {
      sent = JSON.parse(sessionStorage.getItem(SENT) || "null");
      sessionStorage.removeItem(SENT);
    } catch (x) { sent = null; }
    if (!sent || !document.body.getAttribute("data-offline-as-of")) return;
    typedInto(form, sent.fields);
    onPhone(sent.step, sent.fields);
  });
})();
