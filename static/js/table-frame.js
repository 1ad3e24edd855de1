// The GM's table page (templates/contests/table.html): a link marked data-goto-frame
// ("Frame the next one…" in the bar) opens the Frame a contest panel, brings it into
// view below the sticky bar and puts the cursor in its first field. On a phone the
// panel is far below the contest (issue 27, 11d).
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
