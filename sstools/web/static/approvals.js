// Every page: the header's «Одобрения» item, with how many requests the person may approve
// (GET /api/approvals) beside it, no number when none. The /approvals/<id> page: «Одобрить» /
// «Отклонить» (POST /api/approvals/{id}), and the request's state followed by polling — a
// decision by anyone (or the expiry) reloads the page, which the server renders as it stands.
(() => {
  "use strict";
  const POLL_MS = 3000;
  const FOLLOW_TASK_MS = 10 * 60 * 1000; // a run that never starts its task is not polled forever

  async function badge() {
    const link = document.getElementById("approvals-badge");
    if (!link || !window.sstools) return;
    try {
      const response = await window.sstools.api("/api/approvals");
      if (!response.ok) return;
      const answer = await response.json();
      const count = link.querySelector(".approvals-count");
      count.textContent = String(answer.can_approve);
      count.hidden = answer.can_approve === 0; // nothing waits for you: no number at all
    } catch { /* the badge is a hint: a failed read leaves it hidden */ }
  }

  function page() {
    const panel = document.getElementById("approval");
    if (!panel) return;
    const { api, ui } = window.sstools;
    const id = panel.dataset.id;
    const state = panel.dataset.state;
    const approve = document.getElementById("approval-approve");
    const deny = document.getElementById("approval-deny");
    const reason = document.getElementById("approval-reason");
    const error = document.getElementById("approval-error");

    async function decide(decision) {
      for (const control of [approve, deny, reason]) control.disabled = true;
      const said = reason.value.trim();
      const body = decision === "deny" && said ? { decision, reason: said } : { decision };
      const response = await api(`/api/approvals/${encodeURIComponent(id)}`, { method: "POST", body });
      if (response.ok) { location.reload(); return; }
      let detail = `${ui.approval_failed}: ${response.status}`;
      try {
        const answer = await response.json();
        if (typeof answer.detail === "string") detail = answer.detail;
      } catch { /* not JSON */ }
      error.textContent = detail; // the server's words: text only
      error.hidden = false;
      setTimeout(() => location.reload(), 2500); // the request's state as it now stands
    }
    if (approve) {
      approve.addEventListener("click", () => decide("approve"));
      deny.addEventListener("click", () => decide("deny"));
    }

    // Someone else decided, or it expired: the page follows it (both people see it live). An
    // approved request is followed until its task starts, so the approver gets the task's link.
    const waiting = state === "awaiting_second" || state === "awaiting_first";
    const taskComing = state === "approved" && !panel.dataset.task;
    if (!waiting && !taskComing) return;
    const until = Date.now() + FOLLOW_TASK_MS;
    const poll = async () => {
      try {
        const response = await api(`/api/approvals/${encodeURIComponent(id)}`);
        if (response.ok) {
          const answer = await response.json();
          const expired = waiting && new Date(answer.expires_at) <= new Date();
          if (answer.status !== state || expired || (taskComing && answer.task_id)) {
            location.reload();
            return;
          }
        }
      } catch { /* try again at the next poll */ }
      if (waiting || Date.now() < until) setTimeout(poll, POLL_MS);
    };
    setTimeout(poll, POLL_MS);
  }

  const start = () => { badge(); page(); };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
