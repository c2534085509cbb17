// The /agent page's task lines: a started task is followed by polling its record
// (GET /api/tasks/{id}) until it ends, and its ending is said after the last thing its run said.
// Loaded before agent.js, which makes them with what the transcript shares (agentTasks(shared)).
(() => {
  "use strict";
  window.sstools.agentTasks = (shared) => {
    const {
      ui, api, add, element, format, transcript, runEnds, endedRuns, follow, storageKey,
    } = shared;

    const POLL_MS = 1000;
    const UNDOABLE = ["deploy", "migration"];
    const canRollBack = document.querySelector(".chat")?.dataset.canRollBack === "true";
    const input = document.getElementById("message");
    const FINISHED = ["succeeded", "failed", "cancelled"];
    const taskLines = new Map(); // task id → {element, runId}
    const endings = new Map(); // run id → endings waiting for the run to end

    function taskText(task) {
      const head = `${ui.task} «${ui[`task_kind_${task.kind}`] || task.kind}»`;
      if (task.status === "succeeded") return `${head}: ${ui.task_succeeded}`;
      if (task.status === "cancelled") return `${head}: ${ui.task_cancelled}`;
      if (task.status === "failed") {
        const text = `${head}: ${format(ui.task_failed, { error: task.error || "—" })}`;
        const report = task.result || {};
        if (!Array.isArray(report.imported) || !Array.isArray(report.not_imported)) return text;
        return `${text} (${format(ui.task_partial, {
          imported: report.imported.length, not_imported: report.not_imported.length,
        })})`;
      }
      if (!task.progress) return `${head}: ${ui.task_queued}`;
      return `${head}: ${format(ui.task_step, task.progress)}`;
    }

    // «Выкатка «Energy KPIs»: выполнена.» — the words agree with the kind's gender.
    function endingText(task) {
      const gender = ui[`task_gender_${task.kind}`] || "f";
      const names = Array.isArray(task.objects) ? task.objects.map(String) : [];
      const shown = names.slice(0, 3).map((name) => `«${name}»`).join(", ");
      const objects = !names.length ? ""
        : ` ${shown}${names.length > 3 ? ` ${format(ui.task_more, { count: names.length - 3 })}` : ""}`;
      const values = {
        title: ui[`task_title_${task.kind}`] || ui.task, objects,
        status: ui[`task_end_${task.status}_${gender}`], error: task.error || "—",
      };
      const said = format(task.status === "failed" ? ui.task_ended_failed : ui.task_ended, values);
      return `${said}${found(task)}`;
    }

    // What a finished check found, said with its end: «Найдено ошибок: 1, предупреждений: 0.»
    function found(task) {
      const counts = (task.result || {}).counts;
      if (task.kind !== "validation" || task.status !== "succeeded" || !counts) return "";
      const errors = Number(counts.error || 0);
      const warnings = Number(counts.warning || 0);
      return ` ${errors || warnings ? format(ui.task_found, { errors, warnings }) : ui.task_found_nothing}`;
    }

    function renderTask(line, task) {
      line.dataset.status = task.status;
      line.querySelector(".task-text").textContent = taskText(task);
      const bar = line.querySelector("progress");
      bar.hidden = FINISHED.includes(task.status);
      if (task.progress && task.progress.total) {
        bar.max = task.progress.total;
        bar.value = task.progress.step;
      }
      const report = task.result || {};
      if (task.status === "failed" && Array.isArray(report.not_imported)) {
        line.title = report.not_imported.join(", "); // which objects did not make it
      }
      const offered = line.querySelector(".task-rollback");
      if (undoable(task) && !offered) line.append(rollbackButton(task));
      if (!undoable(task) && offered) offered.remove(); // a rollback undid it meanwhile
    }

    // A finished deploy or migration that took a snapshot, and that no rollback undid, can be
    // rolled back: the request goes into the composer for the person to send, and its card is
    // planned like any other.
    function undoable(task) {
      const snapshot = (task.result || {}).snapshot;
      return canRollBack && UNDOABLE.includes(task.kind) && FINISHED.includes(task.status)
        && Boolean(snapshot && snapshot.commit) && !task.undone_by;
    }

    function rollbackButton(task) {
      const button = element("button", "link task-rollback", ui.rollback_action);
      button.type = "button";
      button.title = ui.rollback_title;
      button.addEventListener("click", () => {
        input.value = format(ui.prompt_rollback, { task: String(task.id).slice(0, 8) });
        input.focus();
      });
      return button;
    }

    // A task that ended gets its ending as a message after the last thing its run said (once the
    // run has said it), so the last word on it is never «выполняется»; live and rebuilt alike.
    function endTask(taskId, task) {
      const followed = taskLines.get(taskId);
      const ending = element("li", `msg assistant task-ended status-${task.status}`, endingText(task));
      ending.dataset.taskId = taskId;
      const runId = followed.runId;
      if (runId && !endedRuns.has(runId)) {
        endings.set(runId, [...(endings.get(runId) || []), ending]);
        return;
      }
      putAfter(ending, runId ? runEnds.get(runId) : followed.element);
      if (runId) runEnds.set(runId, ending);
    }

    function putAfter(item, after) {
      if (after && after.isConnected) after.after(item); else transcript.appendChild(item);
      if (item === transcript.lastElementChild) follow();
    }

    function runEnded(runId) {
      endedRuns.add(runId);
      for (const ending of endings.get(runId) || []) {
        putAfter(ending, runEnds.get(runId));
        runEnds.set(runId, ending);
      }
      endings.delete(runId);
    }

    function tasksKey() { return `${storageKey()}:tasks`; }

    function rememberTask(taskId) {
      const known = JSON.parse(sessionStorage.getItem(tasksKey()) || "[]");
      if (!known.includes(taskId)) known.push(taskId);
      sessionStorage.setItem(tasksKey(), JSON.stringify(known.slice(-20)));
    }

    // Polls GET /api/tasks/{id} about once a second until the task has ended. ``runId``: the run
    // whose tool_result started it (none for a task this tab only remembers).
    function followTask(taskId, runId) {
      const known = taskLines.get(taskId);
      if (known) {
        if (runId && !known.runId) { // remembered before the log got to it: its place is here
          const ending = transcript.querySelector(`.task-ended[data-task-id="${CSS.escape(taskId)}"]`);
          transcript.appendChild(known.element);
          known.runId = runId;
          runEnds.set(runId, known.element);
          if (ending) endings.set(runId, [...(endings.get(runId) || []), ending]); // after its run
        }
        return;
      }
      rememberTask(taskId);
      const line = add("task-line", undefined, runId);
      line.dataset.taskId = taskId;
      line.dataset.status = "queued";
      const text = element("span", "task-text", `${ui.task}: ${ui.task_starting}`);
      const bar = element("progress");
      bar.setAttribute("aria-hidden", "true");
      line.append(text, bar);
      taskLines.set(taskId, { element: line, runId });

      const poll = async () => {
        let response;
        try {
          response = await api(`/api/tasks/${encodeURIComponent(taskId)}`);
        } catch {
          setTimeout(poll, POLL_MS); // the server is restarting: keep looking
          return;
        }
        if (response.status === 401) { text.textContent = ui.session_expired; return; }
        if (!response.ok) {
          if (response.status >= 500) { setTimeout(poll, POLL_MS); return; }
          line.dataset.status = "unknown";
          text.textContent = `${ui.task}: ${format(ui.task_unreadable, { status: response.status })}`;
          return;
        }
        const task = await response.json();
        renderTask(line, task);
        if (FINISHED.includes(task.status)) endTask(taskId, task);
        else setTimeout(poll, POLL_MS);
      };
      poll();
    }

    return { followTask, runEnded, tasksKey };
  };
})();
