// The live table's connection (issue 15, issue 27): which socket is the page's, the
// status badge, the heartbeat that notices a dead network, and the guard that keeps
// table actions from being sent while the table is not connected. Loaded before
// table.js on every page that holds a table socket.
// The one socket the page is using (issue 27). The htmx extension's reconnect opens a
// new socket but leaves the old one its handlers: when a socket the network dropped
// finally closes (1006), the extension starts yet another one, closing the good one
// (1005), whose close asks for another reconnect, and so on without end. So the page
// knows which socket is its current one (htmx.createWebSocket, the extension's hook for
// making them): a close from any other is old news; and a socket it gives up is first
// cut off from the extension's handlers, then closed, so it can start nothing later.
const liveSocket = (function () {
  let current = null;
  if (window.htmx && htmx.createWebSocket) {
    const create = htmx.createWebSocket;
    htmx.createWebSocket = function (url) {
      current = create(url);
      return current;
    };
  }
  document.body.addEventListener("htmx:wsOpen", function (evt) {
    if (!current && evt.detail.event) current = evt.detail.event.target;
  });
  return {
    // Whether a socket event (htmx:wsOpen, htmx:wsClose) is about the current socket.
    isCurrent: function (evt) {
      const target = evt.detail && evt.detail.event ? evt.detail.event.target : null;
      return !target || !current || target === current;
    },
    // Give up the current socket and open a new one through the extension's wrapper.
    replace: function (wrapper) {
      const old = current;
      if (old) {
        old.onclose = null;
        old.onerror = null;
      }
      wrapper.reconnect();  // closes the old socket if open, makes the new current
      if (old && old !== current && old.readyState === WebSocket.CONNECTING) old.close();
    },
  };
})();

// Connection status for the live table: connected / reconnecting / refused.
// The server sends the full table state on every (re)connect, so nothing depends on
// what was missed while away.
(function () {
  const REFUSED = {
    4401: "You are not logged in. Log in again to join the table.",
    4403: "You are not a member of this campaign.",
    4404: "You were removed from this campaign.",
  };
  const ROLE_CHANGED = 4409;
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
    if (!liveSocket.isCurrent(evt)) return;  // a socket given up: its close is no news
    const code = evt.detail && evt.detail.event ? evt.detail.event.code : 0;
    if (REFUSED[code]) {
      setStatus("refused", REFUSED[code]);
      return;
    }
    if (code === ROLE_CHANGED) {
      // The GM handed the campaign over: the whole page is redrawn for the new role.
      setStatus("refused", "Your role at this table changed; reloading…");
      setTimeout(function () { window.location.reload(); }, 500);
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

// An honest connection state (issue 15). While the page is in view it pings the server
// every 2 s over the socket, unless it heard from the server in the last second (any
// message proves the connection as well as an answer to a ping: a busy table's pages
// ping less, issue 16); with no message back for 5 s the connection is declared lost
// (a network drop may leave the socket looking open) and reopened. An action
// pressed while the table is not connected is refused on the page, never sent into the
// void; a refused action's message goes away with the next one that succeeds.
(function () {
  const PING_EVERY = 2000, QUIET_BEFORE_PING = 1000, DEAD_AFTER = 5000, ACK_GRACE = 2000;
  let socket = null, lastHeard = Date.now(), declaredDead = false, retryAfter = 0;

  function status() { return document.getElementById("connection-status"); }
  function setStatus(state, text) {
    const el = status();
    if (!el) return;
    el.dataset.state = state;
    el.textContent = text;
  }
  function showError(text) {
    const el = document.getElementById("table-error");
    if (el) { el.className = "error"; el.textContent = text; }
  }
  document.body.addEventListener("htmx:wsOpen", function (evt) {
    socket = evt.detail.socketWrapper;
    lastHeard = Date.now();
    declaredDead = false;
  });
  document.body.addEventListener("htmx:wsClose", function (evt) {
    if (liveSocket.isCurrent(evt)) socket = null;
  });
  document.body.addEventListener("htmx:wsAfterMessage", function () {
    lastHeard = Date.now();
    if (declaredDead) {
      declaredDead = false;
      setStatus("connected", "Connected");
    }
  });
  setInterval(function () {
    if (!socket || document.visibilityState !== "visible") { lastHeard = Date.now(); return; }
    const quiet = Date.now() - lastHeard;
    if (quiet > DEAD_AFTER) {
      // The socket may never notice the drop: start again (the server sends the full
      // state on every connect, so nothing that happened meanwhile is missed). A new
      // socket that cannot open either (made while the network was down) is replaced in
      // turn, less and less often.
      if (!declaredDead || quiet > retryAfter) {
        declaredDead = true;
        retryAfter = Math.min(quiet * 2, 60000);
        setStatus("reconnecting", "Connection lost, reconnecting…");
        try { liveSocket.replace(socket); } catch (e) { /* reconnects on its own */ }
      }
      return;
    }
    if (Date.now() - lastHeard < QUIET_BEFORE_PING) return;
    try { socket.send(JSON.stringify({ action: "ping" })); } catch (e) { /* handled above */ }
  }, PING_EVERY);
  window.addEventListener("offline", function () {
    declaredDead = true;
    setStatus("reconnecting", "Offline: waiting for the network…");
  });

  function tableForm(elt) { return elt && elt.closest && elt.closest("[data-action-form]"); }
  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    if (!tableForm(evt.detail.elt)) return;
    const state = status() ? status().dataset.state : "connected";
    if (state !== "connected" || navigator.onLine === false) {
      evt.preventDefault();
      showError("Not sent: the table is not connected. Press it again once it says Connected.");
      return;
    }
    // The answer carries the action's message (empty on success). A broadcast of the
    // same step often arrives first and replaces the form that asked; htmx then fires
    // nothing the page hears and finds no target for the answer's fragments, so the
    // message is taken from the answer here.
    const xhr = evt.detail.xhr;
    if (xhr) {
      xhr.addEventListener("load", function () {
        if (xhr.status !== 200) return;
        const answer = new DOMParser().parseFromString(xhr.responseText, "text/html");
        const said = answer.getElementById("table-error");
        const shown = document.getElementById("table-error");
        if (said && shown) {
          shown.className = said.className;
          shown.textContent = said.textContent;
        }
        // An action taken is answered with its step's number only: the new panel comes
        // over the socket. If that step has not arrived soon, ask for the full state.
        const ack = answer.getElementById("table-ack");
        const acked = ack ? Number(ack.dataset.acked) : 0;
        if (acked) {
          setTimeout(function () {
            const contest = document.getElementById("contest");
            const seen = contest ? Number(contest.dataset.seq) : 0;
            if (seen < acked && socket) {
              try { socket.send(JSON.stringify({ action: "resync" })); } catch (e) { /* reconnects */ }
            }
          }, ACK_GRACE);
        }
      });
      xhr.addEventListener("error", function () {
        showError("Not sent: the network failed. Nothing was done; press it again once it says Connected.");
      });
    }
  });
  document.body.addEventListener("htmx:sendError", function (evt) {
    if (tableForm(evt.detail.elt)) {
      showError("Not sent: the network failed. Nothing was done; press it again once it says Connected.");
    }
  });
  document.body.addEventListener("htmx:responseError", function (evt) {
    if (tableForm(evt.detail.elt)) {
      showError("The server could not take that action (" + evt.detail.xhr.status + "); nothing was done.");
    }
  });
})();
