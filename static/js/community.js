// The community page (templates/community/page.html).
// After a reconnect, fetch the notation table again: changes made meanwhile were missed.
(function () {
  let opened = 0;
  document.body.addEventListener("htmx:wsOpen", function () {
    opened += 1;
    if (opened > 1) htmx.trigger("#notation-table", "community:resync");
  });
})();
