// The /agent page: UIContext from the URL, a conversation per tab and object, the SSE transcript,
// confirmation cards with the plan they apply, progress lines of the tasks they start. Model
// output, tool output, user text, objectName and plan objects are data: they reach the page only
// as textContent, or as markdown sanitised by DOMPurify.
(() => {
  "use strict";
  const { ui, api } = window.sstools;
  const OBJECT_TYPES = ["dashboard", "dataset", "migration"];
  const CONTEXT_LABELS = {
    dashboard: ui.context_dashboard, dataset: ui.context_dataset, migration: ui.context_migration,
  };

  // -- the context, read once per visit (AGCTX-FR-001/003) ---------------------------------
  const params = new URLSearchParams(location.search);
  const objectType = OBJECT_TYPES.includes(params.get("objectType")) ? params.get("objectType") : null;
  const rawId = params.get("objectId") || "";
  const cleanName = (params.get("objectName") || "").replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, 256);
  const rawRoute = params.get("route") || "/";
  const context = {
    contextVersion: 1,
    objectType,
    objectId: objectType && /^[0-9]{1,18}$/.test(rawId) ? rawId : null,
    objectName: objectType && cleanName ? cleanName : null,
    envId: params.get("envId") || document.body.dataset.env || null,
    route: rawRoute.startsWith("/") && !rawRoute.startsWith("//") && rawRoute.length <= 512
      && !/[\\\u0000-\u001f]/.test(rawRoute) ? rawRoute : "/",
  };

  const chip = document.getElementById("context-chip");
  function renderChip() {
    const what = context.objectType
      ? `${CONTEXT_LABELS[context.objectType]} «${context.objectName || `#${context.objectId}`}»`
      : ui.context_none;
    chip.textContent = context.envId ? `${what} · ${context.envId}` : what;
    chip.dataset.objectType = context.objectType || "none";
  }
  renderChip();

  // EnvSelector: the next messages go with the new environment; the page says so.
  function updateActiveEnv(envId) {
    context.envId = envId;
    document.body.dataset.env = envId;
    const url = new URL(location.href);
    url.searchParams.set("envId", envId);
    history.replaceState(null, "", url.toString());
    renderChip();
  }
  window.sstools.onEnvChange = updateActiveEnv;
  window.sstools.context = context;

  // -- the transcript -------------------------------------------------------------------------
  const transcript = document.getElementById("transcript");
  const form = document.getElementById("composer");
  const input = document.getElementById("message");
  const sendButton = document.getElementById("send");
  const connection = document.getElementById("connection");
  const bubbles = new Map(); // run_id → {element, text}
  const cards = new Set(); // confirmation ids already shown
  const toolLines = new Map(); // call_id → element
  const titles = new Map(); // call_id → the tool's title, from its tool_call
  const deniedCalls = new Set(); // call ids a «Недостаточно прав» card answered
  const saidAlready = new Set(); // texts a status line showed: the same message is not repeated
  const awaiting = new Map(); // confirmation_id → the call_id its card asks about

  // A page's action («Развернуть…») may suggest a request: it lands in the box as plain text
  // (.value, never HTML) and waits for the person to read it and press send.
  const suggested = (params.get("prompt") || "").slice(0, Number(input.maxLength) || 4000);
  if (suggested && !input.value) input.value = suggested;

  // The composer is sticky, so the last item is in view only once its bottom is above the
  // composer's top, and only after it has rendered and grown (streamed text, a card's plan):
  // the transcript's size drives the scroll, not the moment an item is added. Someone who
  // scrolled up to read is left where they are until the next item arrives.
  let following = true;
  const nearTheEnd = () =>
    window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 48;
  function showTheLast() {
    const last = transcript.lastElementChild;
    if (!last) return;
    const hidden = last.getBoundingClientRect().bottom - form.getBoundingClientRect().top + 8;
    if (hidden > 0) window.scrollBy(0, hidden);
  }
  window.addEventListener("scroll", () => { following = nearTheEnd(); }, { passive: true });

  function add(className, text) {
    const item = document.createElement("li");
    item.className = className;
    if (text !== undefined) item.textContent = text;
    transcript.appendChild(item);
    following = true; // a new item is the person's own request or the answer to it
    return item;
  }
  new ResizeObserver(() => { if (following) showTheLast(); }).observe(transcript);

  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
  // Raw HTML in model output is shown as text: no tag of the model's ever reaches a parser
  // that runs handlers (DOMPurify's own parse would). DOMPurify still checks markdown's output.
  // Links and images in model output are data too: an injected document or answer may point
  // anywhere, and an image's address can carry data out when it loads. Only this site and the
  // configured Superset environments stay live; any other address is shown as text, never
  // followed or fetched.
  const originOf = (address) => { try { return new URL(address, location.href).origin; } catch { return null; } };
  const trustedOrigins = new Set([location.origin,
    ...(transcript.dataset.linkOrigins || "").split(" ").filter(Boolean).map(originOf)]);
  function trusted(address) {
    let url;
    try { url = new URL(address, location.href); } catch { return false; }
    return (url.protocol === "http:" || url.protocol === "https:") && trustedOrigins.has(url.origin);
  }
  function inert(labelHtml, labelText, address) {
    const shown = labelText.trim() === address || !labelText.trim()
      ? escapeHtml(address) : `${labelHtml} (${escapeHtml(address)})`;
    return `<span class="inert-link">${shown}</span>`;
  }
  window.marked.use({
    renderer: {
      html: (token) => escapeHtml(token.text || token.raw || ""),
      link(token) { // false: marked's own rendering
        return trusted(token.href) ? false
          : inert(this.parser.parseInline(token.tokens), token.text || "", token.href);
      },
      image(token) {
        return trusted(token.href) ? false
          : inert(escapeHtml(token.text || ""), token.text || "", token.href);
      },
    },
  });

  function markdown(text) {
    return window.DOMPurify.sanitize(window.marked.parse(text), { USE_PROFILE: { html: true } });
  }

  function bubble(runId) {
    if (!bubbles.has(runId)) bubbles.set(runId, { element: add("msg assistant"), text: "" });
    return bubbles.get(runId);
  }

  function busy(on) {
    sendButton.disabled = on;
    form.dataset.busy = on ? "true" : "false";
  }

  // -- confirmation and permission cards (AGGRD-FR-002/003/004) -------------------------------
  function card(event) {
    if (cards.has(event.confirmation_id)) return; // re-sent on reconnect: shown once
    cards.add(event.confirmation_id);
    const decision = event.decision;
    const element = add(`card tone-${decision.tone} level-${decision.level}`);
    element.tabIndex = -1;
    element.setAttribute("role", "group");
    element.dataset.confirmationId = event.confirmation_id;

    const head = document.createElement("div");
    head.className = "card-head";
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = decision.kind === "read" ? ui.read_only
      : decision.stage === "prod" ? ui.production : (decision.stage || "git");
    const title = document.createElement("strong");
    title.textContent = event.title;
    head.append(badge, title);

    const prompt = document.createElement("p");
    prompt.className = "card-prompt";
    prompt.textContent = decision.prompt;
    element.append(head, prompt);

    if (decision.impact) {
      const impact = document.createElement("p");
      impact.className = "card-impact";
      impact.textContent = `${ui.impact}: ${decision.impact}`;
      element.append(impact);
    }
    // The plan's objects are names from Superset: data, so textContent only.
    if (Array.isArray(decision.objects) && decision.objects.length) {
      const list = document.createElement("ul");
      list.className = "card-objects";
      list.setAttribute("aria-label", ui.plan_objects);
      for (const line of decision.objects) {
        const item = document.createElement("li");
        item.textContent = String(line);
        list.append(item);
      }
      element.append(list);
    }
    if (typeof decision.digest === "string" && decision.digest) {
      const digest = document.createElement("p");
      digest.className = "card-digest";
      digest.textContent = `${ui.plan_digest}: ${decision.digest.slice(0, 12)}…`;
      digest.title = format(ui.plan_digest_title, { digest: decision.digest });
      element.append(digest);
    }
    // The call's arguments as labelled values, named by the server from the page's context and
    // the environments registry; the model's words are data, so textContent only.
    const given = Array.isArray(decision.arguments) ? decision.arguments : [];
    if (given.length) {
      const args = document.createElement("dl");
      args.className = "card-args";
      args.setAttribute("aria-label", ui.arguments);
      for (const argument of given) {
        const label = document.createElement("dt");
        label.textContent = String(argument.label);
        const value = document.createElement("dd");
        value.textContent = String(argument.value);
        args.append(label, value);
      }
      element.append(args);
    }

    const actions = document.createElement("div");
    actions.className = "card-actions";
    const confirm = document.createElement("button");
    confirm.type = "button";
    confirm.className = decision.tone === "destructive" ? "danger" : "primary";
    confirm.textContent = ui.confirm;
    const deny = document.createElement("button");
    deny.type = "button";
    deny.textContent = ui.deny;
    actions.append(confirm, deny);
    element.append(actions);

    const decide = async (choice) => {
      confirm.disabled = deny.disabled = true;
      const response = await api(
        `/api/agent/conversations/${conversationId}/confirmations/${event.confirmation_id}`,
        { method: "POST", body: { decision: choice } },
      );
      element.dataset.decided = response.ok ? choice : "late";
      const line = toolLines.get(event.call_id);
      if (response.ok && choice === "approve" && line) line.textContent = `⚙ ${event.title} — ${ui.tool_running}`;
    };
    confirm.addEventListener("click", () => decide("approve"));
    deny.addEventListener("click", () => decide("deny"));
    element.focus();
  }

  // -- task progress lines: a started task is followed by polling its record -------------------
  const POLL_MS = 1000;
  const FINISHED = ["succeeded", "failed", "cancelled"];
  const taskLines = new Map(); // task id → element

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, (match, key) => (key in values ? String(values[key]) : match));
  }

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

  function renderTask(element, task) {
    element.dataset.status = task.status;
    element.querySelector(".task-text").textContent = taskText(task);
    const bar = element.querySelector("progress");
    bar.hidden = FINISHED.includes(task.status);
    if (task.progress && task.progress.total) {
      bar.max = task.progress.total;
      bar.value = task.progress.step;
    }
    const report = task.result || {};
    if (task.status === "failed" && Array.isArray(report.not_imported)) {
      element.title = report.not_imported.join(", "); // which objects did not make it
    }
  }

  function tasksKey() { return `${storageKey}:tasks`; }

  function rememberTask(taskId) {
    const known = JSON.parse(sessionStorage.getItem(tasksKey()) || "[]");
    if (!known.includes(taskId)) known.push(taskId);
    sessionStorage.setItem(tasksKey(), JSON.stringify(known.slice(-20)));
  }

  // Polls GET /api/tasks/{id} about once a second until the task has ended.
  function followTask(taskId) {
    if (taskLines.has(taskId)) return;
    rememberTask(taskId);
    const element = add("task-line");
    element.dataset.taskId = taskId;
    element.dataset.status = "queued";
    const text = document.createElement("span");
    text.className = "task-text";
    text.textContent = `${ui.task}: ${ui.task_starting}`;
    const bar = document.createElement("progress");
    bar.setAttribute("aria-hidden", "true");
    element.append(text, bar);
    taskLines.set(taskId, element);

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
        element.dataset.status = "unknown";
        text.textContent = `${ui.task}: ${format(ui.task_unreadable, { status: response.status })}`;
        return;
      }
      const task = await response.json();
      renderTask(element, task);
      if (!FINISHED.includes(task.status)) setTimeout(poll, POLL_MS);
    };
    poll();
  }

  function deniedCard(event) {
    const element = add("card tone-destructive denied");
    element.tabIndex = -1;
    element.setAttribute("role", "alert");
    const title = document.createElement("strong");
    title.textContent = ui.access_denied;
    // The server's sentence names the tool by its title and the roles in Russian; never ids.
    const detail = document.createElement("p");
    detail.textContent = event.message;
    const dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.textContent = ui.dismiss;
    dismiss.addEventListener("click", () => element.remove());
    element.append(title, detail, dismiss);
    element.focus();
  }

  // -- the event stream -------------------------------------------------------------------------
  const storageKey = `sstools.conversation:${context.objectType}:${context.objectId}:${context.route}`;
  let conversationId = sessionStorage.getItem(storageKey);
  let lastEventId = Number(sessionStorage.getItem(`${storageKey}:last`) || 0);
  let source = null;

  function handle(event) {
    switch (event.type) {
      case "run_started": busy(true); break;
      case "token": {
        const b = bubble(event.run_id);
        b.text += event.text;
        b.element.textContent = b.text;
        break;
      }
      case "message": {
        if (saidAlready.has(event.text)) break; // a cancellation's status line said it
        const b = bubble(event.run_id);
        b.text = event.text;
        b.element.innerHTML = markdown(event.text);
        break;
      }
      case "tool_call":
        titles.set(event.call_id, event.title || ui.tool_generic);
        toolLines.set(event.call_id, add("tool", `⚙ ${titles.get(event.call_id)} — ${ui.tool_running}`));
        break;
      case "tool_result": {
        if (deniedCalls.has(event.call_id)) break; // its «Недостаточно прав» card says it all
        const line = toolLines.get(event.call_id) || add("tool");
        const title = event.title || titles.get(event.call_id) || ui.tool_generic; // never a tool id
        line.textContent = `⚙ ${title}: ${event.outcome === "ok" ? ui.tool_done : event.message || event.outcome}`;
        line.dataset.outcome = event.outcome;
        if (event.task_id) followTask(event.task_id);
        break;
      }
      case "confirm_required": {
        // Nothing runs until the person decides: the tool line says it waits, not «выполняется».
        const line = toolLines.get(event.call_id);
        if (line) line.textContent = `⚙ ${event.title} — ${ui.tool_waiting}`;
        awaiting.set(event.confirmation_id, event.call_id);
        card(event);
        break;
      }
      case "permission_denied":
        deniedCalls.add(event.call_id);
        toolLines.get(event.call_id)?.remove();
        deniedCard(event);
        break;
      case "cancelled": {
        const line = toolLines.get(awaiting.get(event.confirmation_id));
        if (line) line.textContent = `⚙ ${titles.get(awaiting.get(event.confirmation_id))} — ${ui.tool_declined}`;
        saidAlready.add(event.message);
        add("status cancelled", event.message);
        break;
      }
      case "error": add(`status error error-${event.code}`, event.message); break;
      case "done": {
        busy(false);
        const b = bubbles.get(event.run_id);
        if (b && !b.text) b.element.remove();
        break;
      }
      default: break;
    }
  }

  function connect() {
    if (source) return;
    const url = `/api/agent/conversations/${conversationId}/events`
      + (lastEventId ? `?last_event_id=${lastEventId}` : "");
    source = new EventSource(url);
    source.onopen = () => { connection.hidden = true; };
    source.onerror = () => {
      connection.textContent = ui.reconnecting;
      connection.hidden = false;
    };
    source.onmessage = (message) => {
      const event = JSON.parse(message.data);
      const id = Number(message.lastEventId || 0);
      if (event.type !== "confirm_required" && id && id <= lastEventId) return;
      if (id > lastEventId) {
        lastEventId = id;
        sessionStorage.setItem(`${storageKey}:last`, String(id));
      }
      handle(event);
    };
  }

  async function restore() {
    const response = await api(`/api/agent/conversations/${conversationId}`);
    if (!response.ok) { // gone (another user, or a new database): start afresh
      sessionStorage.removeItem(storageKey);
      sessionStorage.removeItem(tasksKey());
      conversationId = null;
      lastEventId = 0;
      return;
    }
    const history = await response.json();
    for (const message of history.messages) {
      const element = add(`msg ${message.role === "user" ? "user" : "assistant"}`);
      if (message.role === "user") element.textContent = message.text;
      else element.innerHTML = markdown(message.text);
    }
    const asked = history.messages.filter((message) => message.role === "user");
    if (asked.length && asked[asked.length - 1].uicontext === null) {
      add("status context-unavailable", ui.context_unavailable); // history from before contexts
    }
    // The history has no tool lines: the tasks this tab started come back after it, still followed.
    for (const taskId of JSON.parse(sessionStorage.getItem(tasksKey()) || "[]")) followTask(taskId);
    connect();
  }

  // The server's own sentence where it gives one (a cap, a busy conversation), else the status.
  async function refusal(response) {
    try {
      const detail = (await response.json()).detail;
      if (typeof detail === "string") return detail;
    } catch { /* not JSON */ }
    return `${ui.error}: ${response.status}`;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (!conversationId) {
      const created = await api("/api/agent/conversations", { method: "POST" });
      if (!created.ok) { add("status error", await refusal(created)); return; }
      conversationId = (await created.json()).id;
      sessionStorage.setItem(storageKey, conversationId);
    }
    const response = await api(`/api/agent/conversations/${conversationId}/messages`, {
      method: "POST", body: { text, uicontext: context },
    });
    if (response.status === 409) { add("status waiting", ui.wait_run); return; }
    if (response.status === 401) { add("status error error-session_expired", ui.session_expired); return; }
    if (!response.ok) { add("status error", await refusal(response)); return; }
    add("msg user", text);
    input.value = "";
    connect();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });

  if (conversationId) restore();
})();
