// Every page (templates/base.html). The Content-Security-Policy allows no inline script,
// so behaviour that pages ask for by attribute lives here.

// A plain form with data-confirm="Question?" asks before it is sent (htmx forms use
// hx-confirm).
document.addEventListener("submit", function (event) {
  const form = event.target;
  const question = form && form.dataset ? form.dataset.confirm : "";
  if (question && !window.confirm(question)) event.preventDefault();
});
