// Connection status for the live table: connected / reconnecting / refused.
// The htmx ws extension reconnects by itself after an abnormal close; the server
// then sends the full table state, so nothing depends on what was missed.
(function () {
  const REFUSED = {
    4401: "You are not logged in. Log in again to join the table.",
    4403: "You are not a member of this campaign.",
    4404: "You were removed from this campaign.",
  };
  function setStatus(state, text) {
    const el = document.getElementById("connection-status");
    if (!el) return;
    el.dataset.state = state;
    el.textContent = text;
  }
  document.body.addEventListener("htmx:wsConnecting", function () {
    setStatus("connecting", "Connecting…");
  });
  document.body.addEventListener("htmx:wsOpen", function () {
    setStatus("connected", "Connected");
  });
  document.body.addEventListener("htmx:wsClose", function (evt) {
    const code = evt.detail && evt.detail.event ? evt.detail.event.code : 0;
    if (REFUSED[code]) {
      setStatus("refused", REFUSED[code]);
    } else {
      setStatus("reconnecting", "Connection lost, reconnecting…");
    }
  });
  document.body.addEventListener("htmx:wsError", function () {
    setStatus("reconnecting", "Connection lost, reconnecting…");
  });
})();
