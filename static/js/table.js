// Connection status for the live table: connected / reconnecting / refused.
// The server sends the full table state on every (re)connect, so nothing depends on
// what was missed while away.
(function () {
  const REFUSED = {
    4401: "You are not logged in. Log in again to join the table.",
    4403: "You are not a member of this campaign.",
    4404: "You were removed from this campaign.",
  };
  // The htmx ws extension reconnects by itself only after these codes; a server that
  // shuts down cleanly (1001) or any other drop gets a reconnect from us.
  const EXTENSION_RECONNECTS = [1006, 1011, 1012, 1013];
  let retries = 0;

  function setStatus(state, text) {
    const el = document.getElementById("connection-status");
    if (!el) return;
    el.dataset.state = state;
    el.textContent = text;
  }
  document.body.addEventListener("htmx:wsConnecting", function () {
    if (document.getElementById("connection-status").dataset.state !== "reconnecting") {
      setStatus("connecting", "Connecting…");
    }
  });
  document.body.addEventListener("htmx:wsOpen", function () {
    retries = 0;
    setStatus("connected", "Connected");
  });
  document.body.addEventListener("htmx:wsClose", function (evt) {
    const code = evt.detail && evt.detail.event ? evt.detail.event.code : 0;
    if (REFUSED[code]) {
      setStatus("refused", REFUSED[code]);
      return;
    }
    setStatus("reconnecting", "Connection lost, reconnecting…");
    if (EXTENSION_RECONNECTS.indexOf(code) < 0 && evt.detail.socketWrapper) {
      const delay = Math.min(1000 * 2 ** retries, 10000) * (0.5 + Math.random() / 2);
      retries += 1;
      setTimeout(evt.detail.socketWrapper.reconnect, delay);
    }
  });
})();
