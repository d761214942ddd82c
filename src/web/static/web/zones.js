// Time zones in forms. Sign-up's hidden input[data-browser-zone] gets the browser's zone
// (the server checks it; without JavaScript the account starts in UTC). Time-zone fields
// (select[data-zone-select], web/forms/zones.py) get a filter field below the select that
// hides the zones whose name does not contain what is typed, and the regions left empty;
// without JavaScript the select is a plain grouped list.
(function () {
  "use strict";
  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
  Array.prototype.forEach.call(document.querySelectorAll("input[data-browser-zone]"), function (input) {
    if (zone && !input.value) input.value = zone;
  });
  var count = 0;
  function norm(text) { return text.toLowerCase().replace(/[_/]+/g, " "); }

  Array.prototype.forEach.call(document.querySelectorAll("select[data-zone-select]"), function (select) {
    count += 1;
    var id = (select.id || "zone-" + count) + "-filter";
    var wrap = document.createElement("div");
    wrap.className = "zone-filter";
    var label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = select.getAttribute("data-filter-label") || "Find a time zone";
    var input = document.createElement("input");
    input.type = "search";
    input.id = id;
    input.autocomplete = "off";
    input.setAttribute("aria-controls", select.id);
    wrap.appendChild(label);
    wrap.appendChild(input);
    select.parentNode.insertBefore(wrap, select.nextSibling);

    input.addEventListener("input", function () {
      var words = norm(input.value).split(" ").filter(Boolean);
      var first = null;
      Array.prototype.forEach.call(select.querySelectorAll("optgroup"), function (group) {
        var shown = 0;
        Array.prototype.forEach.call(group.querySelectorAll("option"), function (option) {
          var text = norm(option.value + " " + option.textContent);
          var match = words.every(function (word) { return text.indexOf(word) !== -1; });
          option.hidden = !match;
          if (match) { shown += 1; if (!first) first = option; }
        });
        group.hidden = shown === 0;
      });
      var chosen = select.options[select.selectedIndex];
      if (first && (!chosen || chosen.hidden)) {
        select.value = first.value;
        select.dispatchEvent(new Event("change", { bubbles: true }));
      }
    });
  });
})();
