// Ask first, in a dialog: a form marked data-confirm is sent with the header
// X-Encore-Confirm: dialog; the server answers with the confirmation it would show as a
// page (web.views.confirm), without the page around it, and that goes into a modal
// <dialog>. "Yes, …" inside it is a plain form post; "Keep it" and Escape close it.
// Anything else than a confirmation (a refusal, an error) falls back to the plain submit,
// which shows the server's page; without JavaScript the plain submit is all there is.
(function () {
  "use strict";
  var HEADER = "X-Encore-Confirm";
  if (!window.fetch || !window.HTMLDialogElement) return;
  var dialog = null;
  var opener = null;

  function theDialog() {
    if (dialog) return dialog;
    dialog = document.createElement("dialog");
    dialog.className = "confirm-dialog";
    dialog.setAttribute("aria-labelledby", "confirm-heading");
    dialog.addEventListener("close", function () {
      dialog.replaceChildren();
      if (opener && document.contains(opener)) opener.focus();
      opener = null;
    });
    dialog.addEventListener("click", function (event) {
      var keep = event.target.closest("[data-confirm-keep]");
      if (keep) {
        event.preventDefault();
        dialog.close();
      }
    });
    document.body.appendChild(dialog);
    return dialog;
  }

  function show(html, submitter) {
    var box = theDialog();
    var parsed = new DOMParser().parseFromString(html, "text/html");
    box.replaceChildren.apply(box, Array.prototype.slice.call(parsed.body.childNodes));
    opener = submitter || document.activeElement;
    box.showModal();
    // The least harmful place to start: the message to write if there is one, else "Keep it".
    var first = box.querySelector("textarea") || box.querySelector("[data-confirm-keep]");
    if (first) first.focus();
  }

  function plainSubmit(form, submitter) {
    form.setAttribute("data-confirm-asked", "");
    if (form.requestSubmit) form.requestSubmit(submitter || undefined);
    else form.submit();
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-confirm")) return;
    if (event.defaultPrevented) return;
    if (form.hasAttribute("data-confirm-asked")) {
      form.removeAttribute("data-confirm-asked");
      return;
    }
    event.preventDefault();
    var submitter = event.submitter || null;
    var headers = {};
    headers[HEADER] = "dialog";
    fetch(form.action, {
      method: "POST",
      body: new FormData(form, submitter),
      headers: headers,
      credentials: "same-origin",
    })
      .then(function (response) {
        if (response.ok && response.headers.get(HEADER) === "dialog") {
          return response.text().then(function (html) { show(html, submitter); });
        }
        if (response.ok && response.redirected) {
          window.location.assign(response.url);
          return;
        }
        plainSubmit(form, submitter);
      })
      .catch(function () { plainSubmit(form, submitter); });
  });
})();
