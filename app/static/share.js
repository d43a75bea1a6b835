/* Tonk Tally: print buttons and "Share the result" (issue 23). Plain script, no build step;
   kept apart from tonk.js so that the pages that need it load it. */
(function () {
  "use strict";
  Array.prototype.forEach.call(document.querySelectorAll("button[data-print]"), function (b) {
    if (!window.print) return;
    b.hidden = false;
    b.addEventListener("click", function () { window.print(); });
  });
})();
