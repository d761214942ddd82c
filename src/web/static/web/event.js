/* The event page: the offer's countdown, second by second, and a quiet status poll.
 *
 * Without JavaScript the page still says until when the seat is held and how much time
 * was left when it was rendered; this only keeps the [role=timer] text current. The
 * seconds come from the server (data-countdown), counted from when the element was
 * first seen, so a wrong clock on the phone does not matter.
 *
 * htmx polls the "Your status" region; the server sends the region's digest in
 * X-Encore-State, and an unchanged region is left alone (no lost focus, no repeated
 * announcement).
 */
(function () {
  "use strict";
  var firstSeen = new WeakMap();

  function pad(n) {
    return n < 10 ? "0" + n : String(n);
  }

  function clock(seconds) {
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    return hours + ":" + pad(minutes) + ":" + pad(seconds % 60);
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("[role=timer][data-countdown]").forEach(function (timer) {
      if (!firstSeen.has(timer)) {
        firstSeen.set(timer, now);
      }
      var total = Number(timer.getAttribute("data-countdown")) || 0;
      var left = Math.max(0, total - Math.floor((now - firstSeen.get(timer)) / 1000));
      var text = clock(left);
      if (timer.textContent !== text) {
        timer.textContent = text;
      }
    });
  }

  document.addEventListener("htmx:beforeSwap", function (evt) {
    var body = document.getElementById("your-status-body");
    var xhr = evt.detail.xhr;
    if (!body || !xhr || evt.detail.target.id !== "your-status") {
      return;
    }
    var state = xhr.getResponseHeader("X-Encore-State");
    if (xhr.status === 200 && state && state === body.getAttribute("data-state")) {
      evt.detail.shouldSwap = false;
    }
  });

  tick();
  window.setInterval(tick, 1000);
})();
