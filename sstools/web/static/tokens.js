// The settings page's «Токены доступа»: create one (POST /api/auth/tokens; its value is shown
// once, here, and never again) and revoke one (DELETE /api/auth/tokens/{name}). Names are data:
// set as text, never as HTML.
(() => {
  "use strict";
  function start() {
    const form = document.getElementById("token-form");
    if (!form || !window.sstools) return;
    const { api, ui } = window.sstools;
    const table = document.querySelector(".tokens-table");
    const none = document.querySelector(".tokens-none");
    const made = document.getElementById("token-made");
    const value = document.getElementById("token-value");
    const error = document.getElementById("token-error");
    const format = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => String(values[key]));

    function cell(label, text, className) {
      const td = document.createElement("td");
      td.dataset.label = label;
      td.textContent = text;
      if (className) td.className = className;
      return td;
    }

    function revokeButton() {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link token-revoke";
      button.textContent = ui.token_revoke;
      return button;
    }

    function said(text) {
      error.textContent = text;
      error.hidden = !text;
    }

    async function failure(response) {
      try {
        const answer = await response.json();
        if (typeof answer.detail === "string") return answer.detail;
        if (Array.isArray(answer.detail)) return ui.token_bad_name;
      } catch { /* not JSON */ }
      return format(ui.token_failed, { status: response.status });
    }

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      said("");
      const name = form.elements.name.value.trim();
      const days = form.elements.days.value ? Number(form.elements.days.value) : null;
      const response = await api("/api/auth/tokens", {
        method: "POST", body: days ? { name, expires_days: days } : { name },
      });
      if (response.status !== 201) { said(await failure(response)); return; }
      const answer = await response.json();
      value.value = answer.token;
      made.hidden = false;
      value.select();
      const row = document.createElement("tr");
      row.dataset.name = answer.name;
      const until = days ? new Date(Date.now() + days * 86400000).toLocaleDateString("ru-RU") : ui.token_never;
      row.append(
        cell(ui.token_name, answer.name, "token-name"), cell(ui.token_created, ui.token_just_now),
        cell(ui.token_expires, until), cell(ui.token_used, ui.token_unused),
      );
      const last = document.createElement("td");
      last.append(revokeButton());
      row.append(last);
      table.querySelector("tbody").append(row);
      table.hidden = false;
      none.hidden = true;
      form.reset();
    });

    table.addEventListener("click", async (event) => {
      const button = event.target.closest(".token-revoke");
      if (!button) return;
      const row = button.closest("tr");
      const name = row.dataset.name;
      if (button.dataset.armed !== "true") { // the second press revokes: no native dialog
        button.dataset.armed = "true";
        button.textContent = ui.token_revoke_sure;
        return;
      }
      const response = await api(`/api/auth/tokens/${encodeURIComponent(name)}`, { method: "DELETE" });
      if (response.status !== 204) { said(await failure(response)); return; }
      row.remove();
      const left = table.querySelectorAll("tbody tr").length;
      table.hidden = left === 0;
      none.hidden = left !== 0;
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
