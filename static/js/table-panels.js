// The table page's panels beside the contest (templates/contests/table.html). The
// Content-Security-Policy allows no inline script, so what they ask for lives here.

// A link marked data-goto-frame ("Frame the next one…" in the GM's bar) opens the
// Frame a contest panel, brings it into view below the sticky bar and puts the cursor
// in its first field: on a phone the panel is far below the contest (issue 27, 11d).
(function () {
  document.addEventListener("click", function (event) {
    const link = event.target.closest && event.target.closest("[data-goto-frame]");
    const dialog = document.querySelector("[data-frame-dialog]");
    if (!link || !dialog) return;
    event.preventDefault();
    dialog.open = true;
    const first = dialog.querySelector("[data-frame-form] select, [data-frame-form] input:not([type=hidden])");
    const target = first || dialog.querySelector("summary");
    target.focus({ preventScroll: true });
    const bar = document.querySelector("[data-move-bar]");
    const covered = bar ? bar.getBoundingClientRect().bottom : 0;
    window.scrollBy(0, dialog.getBoundingClientRect().top - Math.max(covered, 0) - 8);
  });
})();

// The community's panel (lobbying, §8.2): its draws arrive over the socket; after a
// reconnect the panel is fetched again, as changes made meanwhile were missed (and as
// a session begins or ends: the template asks for qwsessionchanged). A
// lobbying answered with its result clears the form for the next one.
(function () {
  let opened = 0;
  document.body.addEventListener("htmx:wsOpen", function () {
    opened += 1;
    if (opened > 1) htmx.trigger(document.body, "qwcommunityresync");
  });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    const form = evt.detail.elt;
    if (form && form.matches && form.matches("[data-lobby-form]") && evt.detail.xhr.status === 200) {
      form.reset();
    }
  });
})();
