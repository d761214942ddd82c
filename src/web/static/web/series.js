// The public series page: "Copy feed link" puts the feed's address on the clipboard and
// says "Copied" in its role="status" region. Without JavaScript (or a clipboard) the
// button's paragraph stays hidden and the read-only field beside it holds the address.
(function () {
  "use strict";
  if (!navigator.clipboard || !navigator.clipboard.writeText) return;
  Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), function (button) {
    var status = button.parentNode.querySelector('[role="status"]');
    button.parentNode.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
        if (status) status.textContent = button.getAttribute("data-copied");
      });
    });
  });
})();
