// Character sheet and wizard helpers: printing, and the prose method's phrase picking
// (§3.6): select words in your paragraph, press the button, and they fill the ability
// form. Phrases already taken are underlined (keywords twice). Everything else is htmx.
(function () {
  function escapeHtml(text) {
    return text.replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  // Underline each taken phrase where it occurs as whole words, any case or spacing:
  // the same reading the rules engine's check_prose uses.
  function underlinePhrases() {
    const box = document.getElementById("prose-text");
    const data = document.getElementById("prose-phrases");
    if (!box || !data) return;
    const phrases = JSON.parse(data.textContent).sort(function (a, b) {
      return b.phrase.length - a.phrase.length;
    });
    const text = box.textContent;
    const marks = [];
    phrases.forEach(function (item) {
      const words = item.phrase.split(/\s+/).filter(Boolean).map(escapeRegExp);
      if (!words.length) return;
      const pattern = new RegExp("(?<![\\p{L}\\p{N}_])" + words.join("\\s+") + "(?![\\p{L}\\p{N}_])", "giu");
      let match;
      while ((match = pattern.exec(text)) !== null) {
        const start = match.index;
        const end = start + match[0].length;
        if (!marks.some(function (m) { return start < m.end && end > m.start; })) {
          marks.push({ start: start, end: end, keyword: item.keyword });
        }
      }
    });
    marks.sort(function (a, b) { return a.start - b.start; });
    let html = "";
    let at = 0;
    marks.forEach(function (m) {
      html += escapeHtml(text.slice(at, m.start));
      html += '<u class="' + (m.keyword ? "phrase phrase-keyword" : "phrase") + '">' +
        escapeHtml(text.slice(m.start, m.end)) + "</u>";
      at = m.end;
    });
    box.innerHTML = html + escapeHtml(text.slice(at));
  }

  function selectedProse() {
    const box = document.getElementById("prose-text");
    const selection = window.getSelection();
    if (!box || !selection || selection.rangeCount === 0) return "";
    const range = selection.getRangeAt(0);
    if (!box.contains(range.commonAncestorContainer)) return "";
    return selection.toString().replace(/\s+/g, " ").trim();
  }

  // Remember the last selection inside the paragraph: pressing the button may clear it.
  let lastSelection = "";
  document.addEventListener("selectionchange", function () {
    const text = selectedProse();
    if (text) lastSelection = text;
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-print]")) {
      window.print();
      return;
    }
    if (!event.target.closest("[data-use-selection]")) return;
    const status = document.getElementById("selection-status");
    const phrase = selectedProse() || lastSelection;
    const form = document.getElementById("ability-form");
    if (!phrase || !form) {
      if (status) status.textContent = "Select some words in your paragraph first.";
      return;
    }
    form.querySelector("[name=phrase]").value = phrase;
    const name = form.querySelector("[name=name]");
    name.value = phrase.charAt(0).toUpperCase() + phrase.slice(1);
    if (status) status.textContent = "“" + phrase + "” is in the form below: choose its kind and rating.";
    lastSelection = "";
    name.focus();
  });

  document.addEventListener("DOMContentLoaded", underlinePhrases);
  document.addEventListener("htmx:afterSettle", underlinePhrases);
})();
