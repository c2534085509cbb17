// «Расхождения»: the page shows the last report at once; while a check runs (the first one, a
// refresh after a deploy, or «Проверить сейчас») it follows GET /api/drift/progress and reloads
// when the check ends. «Проверить сейчас» is a POST (the CSRF header rides along, as on every
// page): a link another site could make followed checks nothing.
(() => {
  "use strict";
  const { ui, api } = window.sstools;
  const button = document.querySelector(".drift-check-now");
  const refused = document.querySelector(".drift-check-refused");
  const progress = document.querySelector(".drift-progress");
  if (!button || !refused || !progress) return;
  const count = progress.querySelector(".drift-progress-count");
  const bar = progress.querySelector(".drift-progress-bar");
  let following = false;

  const show = (done, total) => {
    progress.hidden = false;
    count.textContent = total
      ? ui.drift_progress.replace("{done}", done).replace("{total}", total)
      : ui.drift_progress_listing;
    bar.max = total || 1;
    bar.value = done;
  };

  // Poll while the check runs; reload once it has ended (the page then shows its report).
  const follow = async () => {
    if (following) return;
    following = true;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      let state;
      try {
        const response = await api("/api/drift/progress");
        if (!response.ok) continue;
        state = await response.json();
      } catch { continue; /* a blip: ask again */ }
      if (!state.running) {
        location.reload();
        return;
      }
      show(state.done, state.total);
    }
  };

  if (progress.dataset.running === "1") follow();

  button.addEventListener("click", async () => {
    button.disabled = true;
    button.textContent = ui.drift_checking;
    refused.hidden = true;
    let said = ui.drift_check_failed;
    try {
      const asked = api(`/api/drift/check${location.search}`, { method: "POST" });
      const early = await Promise.race([asked, new Promise((r) => setTimeout(r, 300))]);
      if (early === undefined) { show(0, 0); follow(); } // it checks: show it going
      const response = await asked;
      if (response.ok) {
        location.reload(); // the page shows the report the check left
        return;
      }
      const body = await response.json().catch(() => ({}));
      if (typeof body.detail === "string") said = body.detail;
    } catch { /* the server did not answer: the words above say so */ }
    refused.textContent = said;
    refused.hidden = false;
    button.disabled = false;
    button.textContent = ui.drift_check_now;
  });
})();
