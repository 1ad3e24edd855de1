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
    // An entry already in the log (a full state that came first and is still settling)
    // is never added twice.
    const logged = appends && document.querySelector('#roll-log > li[data-seq="' + seq + '"]');
    if (seq < shownSeq || (appends && seq === shownSeq) || logged) {
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
// Set up as the page loads and again when the frame panel is drawn anew (htmx:load).
(function () {
  document.body.addEventListener("htmx:load", function (evt) {
    const root = evt.detail.elt || evt.target;
    if (!root || !root.querySelectorAll) return;
    root.querySelectorAll("[data-participant-rows]:not([data-rows-ready])").forEach(function (group) {
      group.dataset.rowsReady = "";
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

// Whose move it is: the tab's title and icon show a badge while the table waits on
// this person; an optional sound and browser notification (opted into per person, in
// this browser) when it becomes their move or a contest is framed.
(function () {
  const page = document.querySelector("[data-table-socket]");
  if (!page) return;
  const baseTitle = document.title;
  const icon = document.querySelector("link[data-favicon]");
  const plainIcon = icon ? icon.getAttribute("href") : null;
  const storeKey = "qw-alerts-" + page.dataset.userId;
  let wasMyMove = false, shownContest = null;

  function settings() {
    try { return JSON.parse(localStorage.getItem(storeKey) || "{}"); } catch (e) { return {}; }
  }
  function save(values) {
    try { localStorage.setItem(storeKey, JSON.stringify(values)); } catch (e) { /* private mode */ }
  }
  let audio = null;
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const tone = audio.createOscillator(), gain = audio.createGain();
      tone.frequency.value = 660;
      gain.gain.setValueAtTime(0.15, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.4);
    } catch (e) { /* no sound here */ }
  }
  function alert(text) {
    const chosen = settings();
    if (chosen.sound) beep();
    if (chosen.notify && window.Notification && Notification.permission === "granted" && document.hidden) {
      try { new Notification("QuestWorlds Table", { body: text, tag: "qw-table" }); } catch (e) { /* ignore */ }
    }
  }
  document.querySelectorAll("[data-alert]").forEach(function (box) {
    box.checked = Boolean(settings()[box.dataset.alert]);
    box.addEventListener("change", function () {
      const values = settings();
      values[box.dataset.alert] = box.checked;
      save(values);
      if (box.checked && box.dataset.alert === "notify" && window.Notification && Notification.permission === "default") {
        Notification.requestPermission();
      }
      if (box.checked && box.dataset.alert === "sound") beep();
    });
  });

  // The bar holds this reader's own moves only (each player gets a copy of their own),
  // and for the GM the players' proposals waiting for an answer (#gm-proposals).
  function myMoves() {
    return Array.prototype.slice.call(document.querySelectorAll(
      "#your-move [data-my-move]:not(.optional), #gm-proposals [data-my-move]"));
  }
  function update() {
    const mine = myMoves();
    const isMyMove = mine.length > 0;
    document.title = isMyMove ? "● Your move · " + baseTitle : baseTitle;
    if (icon && plainIcon) icon.setAttribute("href", isMyMove ? icon.dataset.moveHref : plainIcon);
    document.body.dataset.myMove = isMyMove ? "yes" : "no";
    if (isMyMove && !wasMyMove) alert(mine[0].textContent.trim());
    wasMyMove = isMyMove;
    const contest = document.getElementById("contest");
    const id = contest ? contest.dataset.contestId : "";
    if (shownContest !== null && id && id !== shownContest) {
      // A new contest: the last one's refusal is no longer news.
      const error = document.getElementById("table-error");
      if (error) error.textContent = "";
      if (!isMyMove) {
        const title = contest.querySelector("h3");
        alert("A contest is framed" + (title ? ": " + title.textContent.trim() : ""));
      }
    }
    shownContest = id;
  }
  document.addEventListener("DOMContentLoaded", update);
  document.body.addEventListener("htmx:wsAfterMessage", update);
  document.body.addEventListener("htmx:afterSettle", update);
  // A player's own sheet at the table reloads after a change of the contest that can
  // change it (hero points, conditions), and only on the pages of those who play a
  // character in it (the panel's data-sheet-players): a step other than those that
  // change no sheet. A framing or a pick changes none: the abilities the table waits
  // on the player to pick come with their copy of the panel (#my-picks). After the
  // socket (re)connects, or a resync, its first whole contest reloads the sheet unless
  // the sheet was drawn at that very step (data-sheet-at, the page's first load).
  // The new log entry says whether the step may have changed a sheet (from the action's
  // declaration, contests/core/actions/models.py). Such a step brings the cards of the
  // player's characters in the contest with their copy of the panel, swapped in by id
  // with the step they were drawn at (#my-sheet-at): then nothing is reloaded.
  const SHEET_UNCHANGED = /data-sheets="kept"/;
  const CARRIED_AT = /id="my-sheet-at" data-sheet-at="(\d*):(\d+)"/;
  const SHEET_PLAYERS = /id="contest" [^>]*data-sheet-players="([\d ]*)"/;
  const AT = /id="contest" data-contest-id="(\d*)" data-seq="(\d+)"/;
  let connected = false;
  let checkWhenDrawn = false;
  // The step the last cards that came with a step were drawn at: a reload of the sheet
  // that was answered before that step and lands after it would draw an older sheet
  // over them (its cards had nowhere to go while it was on its way): one drawn at an
  // earlier step of the same contest is asked for again. A sheet drawn at another
  // contest (the table's current one changed) is not compared: it is not older.
  let cardsAt = null;
  document.body.addEventListener("htmx:wsOpen", function () { connected = true; });
  document.body.addEventListener("htmx:afterSettle", function (evt) {
    if (!evt.detail.elt || evt.detail.elt.id !== "my-character") return;
    const drawn = evt.detail.elt.querySelector("[data-sheet-at]");
    const since = cardsAt;
    cardsAt = null;
    if (since && drawn) {
      const at = drawn.dataset.sheetAt.split(":");
      if (at[0] === since[0] && parseInt(at[1] || "0", 10) < since[1]) {
        cardsAt = since;
        document.body.dispatchEvent(new CustomEvent("qwtablechanged"));
        return;
      }
    }
    if (!checkWhenDrawn) return;
    checkWhenDrawn = false;
    const contest = document.getElementById("contest");
    const shown = contest ? (contest.dataset.contestId || "") + ":" + (contest.dataset.seq || "0") : ":0";
    if (drawn && drawn.dataset.sheetAt !== shown) {
      document.body.dispatchEvent(new CustomEvent("qwtablechanged"));
    }
  });
  document.body.addEventListener("htmx:wsAfterMessage", function (evt) {
    const message = evt.detail.message || "";
    if (message.indexOf('id="contest"') < 0) return;
    const appended = message.indexOf('hx-swap-oob="afterbegin:#roll-log"') >= 0;
    const players = SHEET_PLAYERS.exec(message);
    const mine = players && players[1].split(" ").indexOf(page.dataset.userId) >= 0;
    if (appended) {
      if (SHEET_UNCHANGED.test(message) || (players && !mine)) return;
      const carried = CARRIED_AT.exec(message);
      if (carried) {
        cardsAt = [carried[1], parseInt(carried[2], 10)];
        return;
      }
    } else {
      const reconnected = connected;
      connected = false;
      const drawn = document.querySelector("#my-character [data-sheet-at]");
      const at = AT.exec(message);
      if (!drawn && reconnected) {
        // The page's own first load of the sheet is still on its way: once it is
        // drawn, it is checked against the contest shown then (below).
        checkWhenDrawn = true;
        return;
      }
      if (drawn && at && drawn.dataset.sheetAt === at[1] + ":" + at[2]) return;
      // A framing changes no sheet: the picks it asks of this player come with it
      // (#my-picks, in their copy of the panel), as the clearing of any old ones does.
      if (!reconnected && at && at[2] === "1") return;
      if (!reconnected && players && !mine) return;
    }
    document.body.dispatchEvent(new CustomEvent("qwtablechanged"));
  });
})();

// The session began or ended while the page was open, or while it was away. Every
// message about the session carries the page's session notice, marked with the open
// session's id (`data-session`, empty without one): the live news of a start or an end
// (`table.session`, in words), or the full state a (re)connect or a resync brings.
// When the mark changes, the parts that follow the session change with it: a full
// state carries them (the chat panel, the GM's frame panel), the news has the page
// reload them (`qwsessionchanged`); a player's sheet reloads too (hero points given or
// turned to experience, states that waned). When it does not, a full state leaves those
// parts alone, so what someone is typing in them survives, and a notice just received
// stays (issue 27).
(function () {
  const MARK = /id="session-notice"[^>]*data-session="([^"]*)"/;
  const FOLLOW_THE_SESSION = ["session-notice", "chat-panel", "frame-panel"];
  let changed = false, carried = false;
  function shownMark() {
    const notice = document.getElementById("session-notice");
    return notice ? notice.dataset.session || "" : "";
  }
  document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
    const message = evt.detail.message || "";
    const mark = MARK.exec(message);
    changed = Boolean(mark) && mark[1] !== shownMark();
    carried = message.indexOf('id="chat-panel"') >= 0;
  });
  document.body.addEventListener("htmx:oobBeforeSwap", function (evt) {
    const target = evt.detail.target;
    if (!target || FOLLOW_THE_SESSION.indexOf(target.id) < 0 || changed) return;
    const news = target.id === "session-notice" && evt.detail.fragment.textContent.trim();
    if (!news) evt.detail.shouldSwap = false;
  });
  document.body.addEventListener("htmx:wsAfterMessage", function () {
    if (!changed) return;
    changed = false;
    if (!carried) document.body.dispatchEvent(new CustomEvent("qwsessionchanged"));
    document.body.dispatchEvent(new CustomEvent("qwtablechanged"));
  });
})();

// The player's sheet changed outside a contest's steps (the GM awarded hero points,
// applied or ended a state: `table.sheet`, sent to that player's pages only).
document.body.addEventListener("htmx:wsAfterMessage", function (evt) {
  if ((evt.detail.message || "").indexOf("data-sheet-changed") < 0) return;
  document.body.dispatchEvent(new CustomEvent("qwtablechanged"));
});

// A player's proposal was made, withdrawn or answered (issue 30): every page reloads
// the proposals it shows, for its own reader (and the GM's bar its own lines).
document.body.addEventListener("htmx:wsAfterMessage", function (evt) {
  if ((evt.detail.message || "").indexOf("data-proposals-changed") < 0) return;
  document.body.dispatchEvent(new CustomEvent("qwproposalschanged"));
});

// Table chat. The sender's own answer carries the whole chat list, so the broadcast of
// the same line may arrive after it: a line already on the page is not added twice.
// Once a line is taken, the message box empties for the next one (unless the next one
// is already typed there); the list shows the newest line at its bottom.
(function () {
  // A line's data-chat-line is a keyed hash of it (contests.models.ChatMessage.ref).
  const APPENDED = /hx-swap-oob="beforeend:#chat-log"[^]*?data-chat-line="([0-9a-f]+)"/;
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
  function chatForm(evt) {
    const form = evt.detail.elt;
    return form && form.matches && form.matches("[data-chat-form]") ? form : null;
  }
  function say(form, text) {
    const said = form.querySelector("[data-chat-error]");
    if (said) said.textContent = text;
  }
  // What each request carries, read as it is sent: a line typed while the previous one
  // is on its way is queued by htmx and sent next, never wiped by the first one's answer.
  document.body.addEventListener("htmx:configRequest", function (evt) {
    const form = chatForm(evt);
    if (form) form.dataset.sending = evt.detail.parameters.text || "";
  });
  // A line sent while the table is not connected would be lost on the way (issue 27):
  // it is not sent, the page says so, and the line stays in the box to send again.
  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    const form = chatForm(evt);
    if (!form) return;
    const shown = document.getElementById("connection-status");
    if ((shown && shown.dataset.state !== "connected") || navigator.onLine === false) {
      evt.preventDefault();
      delete form.dataset.sending;
      say(form, "Not sent: the table is not connected. Your line is still in the box: send it again once it says Connected.");
    }
  });
  document.body.addEventListener("htmx:sendError", function (evt) {
    const form = chatForm(evt);
    if (form) say(form, "Not sent: the network failed. Your line is still in the box: send it again once it says Connected.");
  });
  document.body.addEventListener("htmx:responseError", function (evt) {
    const form = chatForm(evt);
    if (form) say(form, "The server could not take your line (" + evt.detail.xhr.status + "); it is still in the box.");
  });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    const form = chatForm(evt);
    if (!form) return;
    const sent = form.dataset.sending;
    delete form.dataset.sending;
    if (evt.detail.xhr && evt.detail.xhr.status === 200) {
      say(form, "");
      const box = form.querySelector('[name="text"]');
      if (box && box.value === sent) {
        box.value = "";
        box.focus();
      }
    }
  });
  document.body.addEventListener("htmx:oobAfterSwap", showNewest);
  document.addEventListener("DOMContentLoaded", showNewest);
})();

// The GM's frame form, step by step: only the fields of the chosen kind show; once a
// contest is framed the form is cleared for the next one and the new contest is brought
// into view (a refused framing keeps what was typed).
(function () {
  function showKind(form) {
    const kind = form.querySelector("select[name=kind]");
    if (!kind) return;
    form.querySelectorAll("[data-for-kinds]").forEach(function (part) {
      part.hidden = part.dataset.forKinds.split(" ").indexOf(kind.value) < 0;
    });
  }
  // As the page loads and when the frame panel is drawn anew (a session began).
  document.body.addEventListener("htmx:load", function (evt) {
    const root = evt.detail.elt || evt.target;
    if (!root || !root.querySelectorAll) return;
    root.querySelectorAll("[data-frame-form]").forEach(showKind);
  });
  document.addEventListener("change", function (evt) {
    const kind = evt.target;
    if (kind.matches && kind.matches("[data-frame-form] select[name=kind]")) showKind(kind.form);
  });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    const form = evt.detail.elt;
    if (!form || !form.matches || !form.matches("[data-frame-form]") || !evt.detail.successful) return;
    const answer = new DOMParser().parseFromString(evt.detail.xhr.responseText, "text/html");
    const said = answer.getElementById("table-error");
    if (said && said.textContent.trim()) return;  // refused: keep the GM's words
    const kind = form.querySelector("select[name=kind]").value;
    // A proposal the GM amended is framed now: the next framing is the GM's own.
    form.querySelectorAll("input[name=proposal], input[name='pc.ability_id'], [data-amending]")
      .forEach(function (amending) { amending.remove(); });
    form.reset();
    form.querySelectorAll("input[name=prize], input[name=obstacle]").forEach(function (input) {
      input.value = "";  // reset() goes back to a proposal's words, not to empty
    });
    form.querySelector("select[name=kind]").value = kind;
    form.querySelectorAll("input[data-fresh-key]").forEach(function (input) {
      // reset() empties the hidden key: the next framing gets a fresh one.
      input.value = window.crypto && crypto.randomUUID
        ? crypto.randomUUID().replace(/-/g, "")
        : String(Date.now()) + Math.random().toString(16).slice(2);
    });
    showKind(form);
    scrollToNewContest();
  });

  // The GM sees the contest just framed: scrolled to once its panel (and the bar, whose
  // height the scroll leaves room for) has arrived by the socket, which may be before
  // or after the form's answer.
  let framedFrom = null;
  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    const form = evt.detail.elt;
    if (form && form.matches && form.matches("[data-frame-form]")) framedFrom = shownContestId();
  });
  function shownContestId() {
    const contest = document.getElementById("contest");
    return contest ? contest.dataset.contestId || "" : "";
  }
  let scrollPending = false;
  function scrollToNewContest() {
    scrollPending = shownContestId() === framedFrom;
    if (!scrollPending) scrollNow();
  }
  function scrollNow() {
    const contest = document.getElementById("contest-heading");
    if (!contest) return;
    keepRoomForTheBar();  // the bar just changed with the contest: its height now
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    contest.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "start" });
  }
  document.body.addEventListener("htmx:wsAfterMessage", function () {
    if (scrollPending && shownContestId() !== framedFrom) {
      scrollPending = false;
      scrollNow();
    }
  });
})();

// The contest's secondary actions sit behind "More actions" / "Options for ..."
// disclosures. The panel is re-rendered on every change at the table: a disclosure
// this person opened stays open, in this tab, until they close it (so one who likes
// the options in view keeps them there from contest to contest).
(function () {
  function storeKey(details) {
    return "qw-open:" + details.getAttribute("data-more-actions");
  }
  function restore() {
    document.querySelectorAll("details[data-more-actions]").forEach(function (details) {
      if (sessionStorage.getItem(storeKey(details)) === "1") details.open = true;
    });
  }
  document.addEventListener("toggle", function (evt) {
    const details = evt.target;
    if (!details.matches || !details.matches("details[data-more-actions]")) return;
    if (details.open) sessionStorage.setItem(storeKey(details), "1");
    else sessionStorage.removeItem(storeKey(details));
  }, true);
  document.addEventListener("DOMContentLoaded", restore);
  document.body.addEventListener("htmx:oobAfterSwap", restore);
  document.body.addEventListener("htmx:wsAfterMessage", restore);
})();

// What a person is in the middle of choosing or typing in a table form (an ability
// picked, a tactic half written) survives the panel being drawn again when someone else
// acts: the same form (same action, same contest and side or participant) gets it back.
// Once the form is sent and taken, it is forgotten.
(function () {
  const kept = new Map();
  function formKey(form) {
    const fixed = Array.from(form.querySelectorAll("input[type=hidden]"))
      .filter(function (input) { return input.name !== "key" && input.name !== "seq"; })
      .map(function (input) { return input.name + "=" + input.value; })
      .join("&");
    return (form.dataset.action || "") + "|" + fixed;
  }
  function editable(field) {
    return field && field.form && field.name && field.type !== "hidden" && field.type !== "submit"
      && field.form.matches("[data-action-form]");
  }
  function remember(evt) {
    const field = evt.target;
    if (!editable(field)) return;
    const key = formKey(field.form);
    const fields = kept.get(key) || {};
    fields[field.name] = field.type === "checkbox" ? field.checked : field.value;
    kept.set(key, fields);
  }
  document.addEventListener("change", remember, true);
  document.addEventListener("input", remember, true);
  function restore(root) {
    if (!root || !root.querySelectorAll || kept.size === 0) return;
    root.querySelectorAll("form[data-action-form]").forEach(function (form) {
      const fields = kept.get(formKey(form));
      if (!fields) return;
      Object.keys(fields).forEach(function (name) {
        const field = form.elements.namedItem(name);
        if (!field || !editable(field)) return;
        const value = fields[name];
        if (field.type === "checkbox") field.checked = value;
        else if (field.tagName === "SELECT") {
          if (Array.from(field.options).some(function (o) { return o.value === value; })) field.value = value;
        } else field.value = value;
      });
    });
  }
  document.body.addEventListener("htmx:oobAfterSwap", function () { restore(document); });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    const form = evt.detail.elt;
    if (!form || !form.matches || !form.matches("form[data-action-form]") || !evt.detail.successful) return;
    const answer = evt.detail.xhr ? evt.detail.xhr.responseText : "";
    if (/data-acked="/.test(answer)) kept.delete(formKey(form));
  });
})();

// The sticky "your move" bar's height, for the page's scroll padding (site.css): what the
// page scrolls to (a framed contest, a link to a part of it) lands below the bar.
function keepRoomForTheBar() {
  const bar = document.querySelector("[data-move-bar]");
  if (bar) document.documentElement.style.setProperty("--move-bar-height", bar.offsetHeight + "px");
}
if (window.ResizeObserver && document.querySelector("[data-move-bar]")) {
  new ResizeObserver(keepRoomForTheBar).observe(document.querySelector("[data-move-bar]"));
}

// The session notice says once that a session began or ended; its reader dismisses it.
document.body.addEventListener("click", function (evt) {
  const button = evt.target.closest && evt.target.closest("[data-dismiss-notice]");
  if (!button) return;
  const notice = button.closest("[data-session-notice]");
  if (notice) notice.replaceChildren();
});
