// Pages that list tasks (/tasks, a task, the home page, a dashboard's history): the state of
// each unfinished one follows its record (GET /api/tasks/{id}) about every two seconds, until it
// has ended. A task page reloads once its task ends, to show the result.
(() => {
  "use strict";
  const { ui, api } = window.sstools;
  const POLL_MS = 2000;
  const FINISHED = ["succeeded", "failed", "cancelled"];

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, (match, key) => (key in values ? String(values[key]) : match));
  }

  function render(state, task) {
    state.dataset.status = task.status;
    const status = state.querySelector(".task-status");
    status.className = `task-status status-${task.status}`;
    status.textContent = ui[`task_status_${task.status}`] || task.status;
    const progress = state.querySelector(".task-progress");
    if (!progress) return;
    progress.textContent = task.progress && !FINISHED.includes(task.status)
      ? format(ui.task_progress, task.progress) : "";
  }

  async function poll(id, states) {
    let response;
    try {
      response = await api(`/api/tasks/${encodeURIComponent(id)}`);
    } catch {
      setTimeout(() => poll(id, states), POLL_MS); // the server is restarting: keep looking
      return;
    }
    if (response.status >= 500) { setTimeout(() => poll(id, states), POLL_MS); return; }
    if (!response.ok) return; // signed out or gone: the page as it was is what we know
    const task = await response.json();
    for (const state of states) render(state, task);
    if (!FINISHED.includes(task.status)) { setTimeout(() => poll(id, states), POLL_MS); return; }
    if (location.pathname.startsWith("/tasks/")) location.reload(); // the result, in words
  }

  const unfinished = new Map(); // task id → its state elements on this page
  for (const state of document.querySelectorAll(".task-state[data-task-id]")) {
    if (FINISHED.includes(state.dataset.status)) continue;
    const id = state.dataset.taskId;
    unfinished.set(id, [...(unfinished.get(id) || []), state]);
  }
  for (const [id, states] of unfinished) setTimeout(() => poll(id, states), POLL_MS);
})();
