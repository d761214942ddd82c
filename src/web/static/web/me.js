// The countdowns of /me (role="timer", data-deadline): the server's "in 23 minutes" kept
// current while the page is open, in the page's language (Intl.RelativeTimeFormat),
// rounded down like common.human_time so a deadline is never overstated.
(function () {
  "use strict";
  var MINUTE = 60, HOUR = 3600, DAY = 86400;
  var timers = Array.prototype.slice.call(document.querySelectorAll('[role="timer"][data-deadline]'));
  if (!timers.length || !window.Intl || !Intl.RelativeTimeFormat) return;
  var lang = document.documentElement.lang || "en";
  var counted = new Intl.RelativeTimeFormat(lang, { numeric: "always" });
  var worded = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });

  function phrase(seconds) {
    if (seconds <= 0) return worded.format(0, "second");
    if (seconds < MINUTE) return counted.format(Math.floor(seconds), "second");
    if (seconds < HOUR) return counted.format(Math.floor(seconds / MINUTE), "minute");
    if (seconds < 2 * DAY) return counted.format(Math.floor(seconds / HOUR), "hour");
    return counted.format(Math.floor(seconds / DAY), "day");
  }

  function tick() {
    var now = Date.now();
    timers.forEach(function (timer) {
      var deadline = Date.parse(timer.getAttribute("data-deadline"));
      if (isNaN(deadline)) return;
      var text = phrase((deadline - now) / 1000);
      if (timer.textContent !== text) timer.textContent = text;
    });
  }

  setInterval(tick, 15000);
})();
