// «Расхождения»: «Проверить сейчас» asks the server to check the fleet with a POST (the CSRF
// header rides along, as on every page): a link another site could make followed checks nothing.
(() => {
  "use strict";
  const { ui, api } = window.sstools;
  const button = document.querySelector(".drift-check-now");
  const refused = document.querySelector(".drift-check-refused");
  if (!button || !refused) return;
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.textContent = ui.drift_checking;
    refused.hidden = true;
    let said = ui.drift_check_failed;
    try {
      const response = await api(`/api/drift/check${location.search}`, { method: "POST" });
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
