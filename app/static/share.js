/* Tonk Tally: print buttons and "Share the result". Plain script, no build step;
   kept apart from tonk.js so that only the pages that need it load it (after tonk.js,
   whose copying it uses: window.TonkPage.copy). The result's part
   of the page is replaced when the score changes (tonk.js), so buttons are shown again for
   each new part and clicks are taken at the document. */
(function () {
  "use strict";
  function each(root, selector, fn) {
    Array.prototype.forEach.call(root.querySelectorAll(selector), fn);
  }
  function canPicture() {
    var c = document.createElement("canvas");
    return !!(c.getContext && c.toBlob);
  }
  function show(root) {
    each(root, "button[data-print]", function (b) { b.hidden = !window.print; });
    each(root, "button[data-copy-text]", function (b) {
      b.hidden = !(navigator.clipboard || document.queryCommandSupported);
    });
    each(root, "button[data-share-text]", function (b) { b.hidden = !navigator.share; });
    each(root, "button[data-picture]", function (b) { b.hidden = !canPicture(); });
  }
  function said(text) {
    var out = document.getElementById("result-said");
    if (out) out.textContent = text;
  }

  // The totals as a picture: a title, how many hands, one row a player, gains in blue and
  // losses in orange (the sign says it too), drawn with the phone's own fonts.
  function picture(data) {
    var scale = 2, width = 540, rowH = 44, top = 110, bottom = 50;
    var height = top + rowH * data.rows.length + bottom;
    var canvas = document.createElement("canvas");
    canvas.width = width * scale;
    canvas.height = height * scale;
    var g = canvas.getContext("2d");
    g.scale(scale, scale);
    var font = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans CJK JP", sans-serif';
    g.fillStyle = "#f6f5f1";
    g.fillRect(0, 0, width, height);
    g.fillStyle = "#1b1f24";
    g.fillRect(0, 0, width, 8);
    g.textBaseline = "alphabetic";
    g.font = "800 28px " + font;
    g.fillText(data.title, 24, 52, width - 48);
    g.fillStyle = "#59616b";
    g.font = "18px " + font;
    g.fillText(data.subtitle, 24, 82, width - 48);
    var colours = {pos: "#0a58b0", neg: "#b34700", zero: "#1b1f24"};
    data.rows.forEach(function (row, i) {
      var y = top + rowH * i;
      g.fillStyle = i % 2 ? "#f6f5f1" : "#ffffff";
      g.fillRect(16, y, width - 32, rowH);
      g.fillStyle = "#1b1f24";
      g.font = "600 22px " + font;
      g.textAlign = "left";
      g.fillText(row[0], 28, y + 30, width * 0.55);
      g.fillStyle = colours[row[2]] || colours.zero;
      g.font = "700 22px " + font;
      g.textAlign = "right";
      g.fillText(row[1], width - 28, y + 30, width * 0.4);
    });
    g.textAlign = "left";
    g.fillStyle = "#59616b";
    g.font = "14px " + font;
    g.fillText(data.footer, 24, height - 20);
    return canvas;
  }
  window.tonkPicture = picture;  // for the browser tests

  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button");
    if (!b) return;
    if (b.hasAttribute("data-print")) { window.print(); return; }
    var id = b.getAttribute("data-copy-text") || b.getAttribute("data-share-text");
    var box = id && document.getElementById(id);
    if (box && b.hasAttribute("data-copy-text")) {
      window.TonkPage.copy(box, function () { said(b.getAttribute("data-done") || "✓"); });  // (tonk.js)
    } else if (box) {
      navigator.share({title: b.getAttribute("data-title") || document.title, text: box.value})
        .catch(function () { /* the sheet was closed */ });
    } else if (b.hasAttribute("data-picture")) {
      var source = document.getElementById(b.getAttribute("data-picture"));
      if (!source) return;
      var name = b.getAttribute("data-file") || "tonk.png";
      picture(JSON.parse(source.textContent)).toBlob(function (blob) {
        var file = window.File ? new File([blob], name, {type: "image/png"}) : null;
        if (file && navigator.canShare && navigator.canShare({files: [file]})) {
          navigator.share({files: [file]}).catch(function () { /* closed */ });
          return;
        }
        var a = document.createElement("a");
        a.href = URL.createObjectURL(blob);
        a.download = name;
        document.body.appendChild(a);
        a.click();
        setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
      }, "image/png");
    }
  });

  show(document);
  var live = document.getElementById("live");
  if (live && window.MutationObserver) {
    new MutationObserver(function () { show(live); }).observe(live, {childList: true});
  }
})();
