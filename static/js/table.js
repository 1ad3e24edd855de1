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

// Idempotency keys and sequence numbers for table actions.
// Every action form carries a key; a double click sends the same key twice and the
// server keeps one event. A new key is drawn once the server has answered.
(function () {
  function freshKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID().replace(/-/g, "");
    return String(Date.now()) + Math.random().toString(16).slice(2);
  }
  function fillKeys(root) {
    root.querySelectorAll("input[data-fresh-key]").forEach(function (input) {
      if (!input.value) input.value = freshKey();
    });
  }
  document.addEventListener("DOMContentLoaded", function () { fillKeys(document); });
  document.body.addEventListener("htmx:load", function (evt) { fillKeys(evt.target); });
  document.body.addEventListener("htmx:oobAfterSwap", function (evt) { fillKeys(evt.target); });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    const form = evt.detail.elt;
    if (form && form.querySelectorAll) {
      form.querySelectorAll("input[data-fresh-key]").forEach(function (input) { input.value = freshKey(); });
    }
  });

  // Every contest message carries the contest's sequence number. A broadcast adds its
  // event on top of the roll log, so it must be applied once and in order:
  // - older than what the page shows (a late message, or one already in a full state the
  //   page got since): dropped;
  // - the same step again as an added log entry: dropped (the entry is there already);
  // - skipping a step: applied, and the full state is asked for, so the page ends up
  //   exactly like everyone else's.
  // What the page shows is read from the page itself, which htmx answers update too.
  document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
    const message = evt.detail.message;
    const match = /id="contest" data-contest-id="(\d*)" data-seq="(\d+)"/.exec(message);
    if (!match) return;
    const shown = document.getElementById("contest");
    const shownContest = shown ? shown.dataset.contestId : null;
    const shownSeq = shown ? Number(shown.dataset.seq) : 0;
    const contest = match[1], seq = Number(match[2]);
    if (contest !== shownContest) return;
    const appends = message.indexOf('hx-swap-oob="afterbegin:#roll-log"') >= 0;
    if (seq < shownSeq || (appends && seq === shownSeq)) {
      evt.preventDefault();
      return;
    }
    if (seq > shownSeq + 1 && evt.detail.socketWrapper) {
      evt.detail.socketWrapper.send(JSON.stringify({ action: "resync" }));
    }
  });
})();

// The frame form's rows of further participants (group contests). Without scripts every
// row shows; with them the blank rows after the first wait behind "Add another row".
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-participant-rows]").forEach(function (group) {
      const rows = Array.prototype.slice.call(group.querySelectorAll("[data-participant-row]"));
      if (rows.length < 2) return;
      function blank(row) {
        return Array.prototype.every.call(row.querySelectorAll("input, select"), function (field) {
          return !field.value;
        });
      }
      function waiting() {
        return rows.filter(function (row) { return row.style.display === "none"; });
      }
      rows.forEach(function (row, i) {
        if (i > 0 && blank(row)) row.style.display = "none";
      });
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.textContent = "Add another row";
      rows[rows.length - 1].after(button);
      function update() { button.style.display = waiting().length ? "" : "none"; }
      button.addEventListener("click", function () {
        const next = waiting()[0];
        if (!next) return;
        next.style.display = "";
        const first = next.querySelector("input, select");
        if (first) first.focus();  // a keyboard or screen reader user lands in the new row
        update();
      });
      update();
    });
  });
})();

// Table chat. The sender's own answer carries the whole chat list, so the broadcast of
// the same line may arrive after it: a line already on the page is not added twice.
// Once a line is taken, the message box empties for the next one; the list shows the
// newest line at its bottom.
(function () {
  const APPENDED = /hx-swap-oob="beforeend:#chat-log"[^]*?data-chat-line="(\d+)"/;
  function showNewest() {
    const log = document.getElementById("chat-log");
    if (log) log.scrollTop = log.scrollHeight;
  }
  document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
    const match = APPENDED.exec(evt.detail.message);
    if (match && document.querySelector('#chat-log [data-chat-line="' + match[1] + '"]')) {
      evt.preventDefault();
    }
  });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    const form = evt.detail.elt;
    if (!form || !form.matches || !form.matches("[data-chat-form]")) return;
    if (evt.detail.xhr && evt.detail.xhr.status === 200) {
      const box = form.querySelector('[name="text"]');
      if (box) {
        box.value = "";
        box.focus();
      }
    }
  });
  document.body.addEventListener("htmx:oobAfterSwap", showNewest);
  document.addEventListener("DOMContentLoaded", showNewest);
})();
