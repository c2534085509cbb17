// The /agent page: UIContext from the URL, its object as Superset has it (followed by UUID when
// the environment changes), a conversation per tab and object, the SSE transcript — rebuilt from
// the conversation's event log on a reload —, confirmation cards stamped with their decision
// (agent_cards.js), progress lines of the tasks they start and each task's ending
// (agent_tasks.js; both loaded before this file). Model output, tool output, user
// text, object names and plan objects are data: they reach the page only as textContent, or as
// markdown sanitised by DOMPurify.
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
  const digits = (value) => (/^[0-9]{1,18}$/.test(value || "") ? value : null);
  const part2 = { // UIContext version 2: the dashboard's filters, a chart, a SQL Lab tab
    filters: objectType === "dashboard" ? filtersOf(params.get("filters")) : [],
    chartId: digits(params.get("chartId")),
    sqlLab: params.get("sql") && digits(params.get("databaseId"))
      ? { sql: params.get("sql").slice(0, 8000), databaseId: params.get("databaseId"),
          ...(params.get("schema") ? { schema: params.get("schema").slice(0, 256) } : {}) }
      : null,
  };
  const version2 = part2.filters.length > 0 || part2.chartId !== null || part2.sqlLab !== null;
  const context = {
    contextVersion: version2 ? 2 : 1,
    objectType,
    objectId: objectType && /^[0-9]{1,18}$/.test(rawId) ? rawId : null,
    objectName: objectType && cleanName ? cleanName : null,
    envId: params.get("envId") || document.body.dataset.env || null,
    route: rawRoute.startsWith("/") && !rawRoute.startsWith("//") && rawRoute.length <= 512
      && !/[\\\u0000-\u001f]/.test(rawRoute) ? rawRoute : "/",
    ...(version2 ? part2 : {}),
  };
  const part2Env = context.envId;

  // The URL's filters: a JSON list of {column, op, values}; what is not of that shape is left
  // out here (the server checks the rest: operators, bounds, the dashboard's columns).
  function filtersOf(raw) {
    let parsed;
    try { parsed = JSON.parse(raw || "[]"); } catch { return []; }
    if (!Array.isArray(parsed)) return [];
    const primitive = (v) => v === null || ["string", "number", "boolean"].includes(typeof v);
    return parsed.filter((one) => one && typeof one.column === "string" && typeof one.op === "string"
      && Array.isArray(one.values) && one.values.every(primitive))
      .slice(0, 10)
      .map((one) => ({ column: one.column, op: one.op, values: one.values.slice(0, 50) }));
  }

  const OPERATOR_WORDS = { "==": "=", "!=": "≠", ">": ">", ">=": "≥", "<": "<", "<=": "≤" };
  function filterWords(one) { // «region: Москва, Казань», «year ≥ 2024», «region: кроме Москва»
    const shown = one.values.slice(0, 3).map((v) => { const t = String(v); return t.length > 40 ? `${t.slice(0, 39)}…` : t; });
    if (one.values.length > 3) shown.push(format(ui.context_more, { n: one.values.length - 3 }));
    const values = shown.join(", ");
    if (one.op in OPERATOR_WORDS) return `${one.column} ${OPERATOR_WORDS[one.op]} ${values}`;
    if (one.op === "NOT IN") return `${one.column}: ${ui.context_filter_except} ${values}`;
    return `${one.column}: ${values}`;
  }

  function partsWords() { // what version 2 adds, in words, after the object and environment
    const words = [];
    if (context.filters && context.filters.length) {
      words.push(format(ui.context_filters, { filters: context.filters.map(filterWords).join("; ") }));
    }
    if (context.chartId) words.push(format(ui.context_chart, { id: context.chartId }));
    if (context.sqlLab) words.push(format(ui.context_sql, { id: context.sqlLab.databaseId }));
    return words;
  }

  // Where the object is, per environment, as the server answered: {objectId, name}, "absent",
  // "unknown" (no answer) or "looking". The URL's objectName is a hint until the server names it.
  // The URL's objectId is the object's id in objectEnvId when it names one (the object is not
  // in envId, or not known there yet), else in envId: a reload or a shared link names it again.
  const FOLLOWED = ["dashboard", "dataset"];
  const rawObjectEnv = params.get("objectEnvId") || "";
  const objectEnv = /^[A-Za-z0-9_.-]{1,64}$/.test(rawObjectEnv) ? rawObjectEnv : context.envId;
  const home = context.objectId && objectEnv && FOLLOWED.includes(objectType)
    ? { envId: objectEnv, objectId: context.objectId } : null;
  // The conversation of this tab and object, kept under the object as the URL names it.
  const keyOf = (objectId) => `sstools.conversation:${context.objectType}:${objectId}:${context.route}`;
  let storageKey = keyOf(context.objectId);
  const places = new Map(home ? [[home.envId, { objectId: home.objectId, name: context.objectName }]] : []);
  const lookups = new Map(); // envId → the answer on its way: a message waits for it

  const chip = document.getElementById("context-chip");
  function renderChip() {
    const found = places.get(context.envId);
    const state = typeof found === "string" ? found : "found";
    chip.dataset.objectType = context.objectType || "none";
    chip.dataset.place = state;
    if (state !== "found") {
      const words = state === "looking" ? ui.context_looking : ui[`context_${state}_${context.objectType}`];
      chip.textContent = format(words, { env: context.envId });
      return;
    }
    const what = context.objectType
      ? `${CONTEXT_LABELS[context.objectType]} «${context.objectName || `#${context.objectId}`}»`
      : ui.context_none;
    chip.textContent = [what, context.envId, ...partsWords()].filter(Boolean).join(" · ");
  }

  function apply() { // the context names the object as the current environment has it, or none
    if (version2) { // a chart's id and a SQL tab's database are the URL's environment's only
      const there = context.envId === part2Env;
      context.chartId = there ? part2.chartId : null;
      context.sqlLab = there ? part2.sqlLab : null;
    }
    if (!home) return renderChip();
    const found = places.get(context.envId);
    context.objectId = typeof found === "object" ? found.objectId : null; // never another env's id
    context.objectName = typeof found === "object" ? found.name : null;
    renderChip();
    nameInUrl(found);
  }

  // The URL names the object as the current environment has it, or (absent, unknown) where
  // it came from; the tab's conversation moves along so that a reload keeps it.
  function nameInUrl(found) {
    const here = typeof found === "object";
    const url = new URL(location.href);
    const wanted = {
      envId: context.envId,
      objectId: here ? found.objectId : home.objectId,
      objectName: here && found.name ? found.name : url.searchParams.get("objectName"),
      objectEnvId: here || home.envId === context.envId ? null : home.envId,
    };
    const stale = Object.entries(wanted).filter(([name, value]) => url.searchParams.get(name) !== value);
    for (const [name, value] of stale) {
      if (value === null) url.searchParams.delete(name); else url.searchParams.set(name, value);
    }
    if (stale.length) history.replaceState(null, "", url.toString()); // a link as it came stays
    const key = keyOf(here ? found.objectId : home.objectId);
    if (key === storageKey) return;
    for (const suffix of ["", ":tasks"]) {
      const kept = sessionStorage.getItem(storageKey + suffix);
      if (kept !== null) sessionStorage.setItem(key + suffix, kept);
    }
    storageKey = key;
  }

  // GET /api/objects/{type}/{id}?env_id=HOME — the object there — or, with &in_env_id=E, the
  // same object (by UUID) in E.
  function ask(envId) {
    const query = new URLSearchParams({ env_id: home.envId });
    if (envId !== home.envId) {
      query.set("in_env_id", envId);
      places.set(envId, "looking");
    }
    apply();
    const other = envId !== home.envId; // the page's own environment keeps the URL's id unanswered
    lookups.set(envId, (async () => {
      try {
        const response = await api(`/api/objects/${objectType}/${home.objectId}?${query}`);
        if (response.ok) {
          const answer = await response.json();
          places.set(envId, answer.present && answer.object_id !== null
            ? { objectId: String(answer.object_id), name: answer.name } : "absent");
        } else if (response.status === 404) places.set(envId, "absent");
        else if (other) places.set(envId, "unknown");
      } catch {
        if (other) places.set(envId, "unknown");
      }
      if (envId === context.envId) apply();
    })());
  }

  function locate(envId) {
    const known = places.get(envId);
    if (!home || (known && known !== "unknown")) apply();
    else ask(envId);
  }
  if (home) ask(home.envId); else renderChip();
  if (home && context.envId !== home.envId) ask(context.envId); // a link from another environment

  // EnvSelector: the next messages go with the new environment and its own id of the object.
  function updateActiveEnv(envId) {
    context.envId = envId;
    document.body.dataset.env = envId;
    const url = new URL(location.href);
    url.searchParams.set("envId", envId);
    history.replaceState(null, "", url.toString());
    locate(envId); // names the object in the URL as envId has it, once known
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
  const cards = new Map(); // confirmation id → {element, callId, title, status}
  const toolLines = new Map(); // call_id → element
  const titles = new Map(); // call_id → the tool's title, from its tool_call
  const deniedCalls = new Set(); // call ids a «Недостаточно прав» card answered
  const approvedAhead = new Set(); // call ids run without a card: «одобрять похожие» covered them
  const saidAlready = new Set(); // texts a status line or a card's stamp said: not repeated
  const runEnds = new Map(); // run_id → the last element of that run, where its tasks' endings go
  const endedRuns = new Set(); // runs that ended (done, or paused on a card)

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
  // Only the person's own scroll (wheel, touch, keys, the scrollbar) stops the following: the
  // browser's own adjustments (scroll anchoring as the page re-lays out) do not.
  let touched = -Infinity;
  for (const type of ["wheel", "touchmove", "keydown", "pointerdown"]) {
    window.addEventListener(type, () => { touched = performance.now(); }, { passive: true });
  }
  window.addEventListener("scroll", () => {
    if (nearTheEnd()) following = true;
    else if (performance.now() - touched < 1000) following = false;
  }, { passive: true });

  function add(className, text, runId) {
    const item = document.createElement("li");
    item.className = className;
    if (text !== undefined) item.textContent = text;
    transcript.appendChild(item);
    if (runId) runEnds.set(runId, item);
    following = true; // a new item is the person's own request or the answer to it
    return item;
  }
  new ResizeObserver(() => { if (following) showTheLast(); }).observe(transcript);

  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
  // Raw HTML in model output is shown as text: no tag of the model's ever reaches a parser
  // that runs handlers (DOMPurify's own parse would). DOMPurify still checks markdown's output.
  // Links and images in model output are data too: an injected document or answer may point
  // anywhere, and an image's address can carry data out when it loads. Only links to this site
  // and the configured Superset environments stay live; any other address is shown as text,
  // never followed. No image is ever fetched: loading one sends the reader's cookies (this
  // site's session, Superset's) to an address the model chose, a GET nobody clicked; its
  // address is shown instead, a link only where links are.
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
      image(token) { // never an <img>
        const label = escapeHtml(token.text || "");
        return trusted(token.href)
          ? `<a href="${escapeHtml(token.href)}">${label || escapeHtml(token.href)}</a>`
          : inert(label, token.text || "", token.href);
      },
    },
  });

  function markdown(text) {
    // No media element survives, whatever produced it: none may load anything by itself.
    return window.DOMPurify.sanitize(window.marked.parse(text), {
      USE_PROFILE: { html: true },
      FORBID_TAGS: ["img", "picture", "source", "video", "audio", "track", "image"],
    });
  }

  function bubble(runId) {
    if (!bubbles.has(runId)) bubbles.set(runId, { element: add("msg assistant", undefined, runId), text: "" });
    return bubbles.get(runId);
  }

  function busy(on) {
    sendButton.disabled = on;
    form.dataset.busy = on ? "true" : "false";
  }

  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function setTool(callId, state) {
    const line = toolLines.get(callId);
    if (line) line.textContent = `⚙ ${titles.get(callId) || ui.tool_generic} — ${state}`;
  }

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, (match, key) => (key in values ? String(values[key]) : match));
  }

  // -- confirmation and permission cards: agent_cards.js ----------------------------------------
  const { card, settle, waiting, deniedCard } = window.sstools.agentCards({
    ui, api, add, element, format, setTool, cards, conversationId: () => conversationId,
  });

  // -- task progress lines: agent_tasks.js ------------------------------------------------------
  const { followTask, runEnded, tasksKey } = window.sstools.agentTasks({
    ui, api, add, element, format, transcript, runEnds, endedRuns,
    follow: () => { following = true; }, storageKey: () => storageKey,
  });

  // -- 👍 / 👎 under each finished answer: agent_feedback.js -----------------------------------
  const feedback = window.sstools.agentFeedback({ ui, api, element, conversationId: () => conversationId });

  // -- the event stream -------------------------------------------------------------------------
  let conversationId = sessionStorage.getItem(storageKey);
  let lastEventId = 0; // a reload rebuilds the transcript from the conversation's first event
  let source = null;
  let asked = []; // the person's messages from the history, for the runs they started
  let previous = null; // the type of the event before this one
  let answersSeen = 0; // the log's `message` events so far: which answer of the history a bubble shows

  // A run is started by a message (the history has its text) or by a decision on a card.
  function runStarted(event) {
    busy(true);
    if (event.decided) settle(event.decided.confirmation_id, event.decided);
    else if (previous === "confirm_required") settle([...cards.keys()].pop(), null);
    else if (asked.length) {
      const message = asked.shift();
      add("msg user", message.text, event.run_id);
      if (!asked.length && message.uicontext === null) {
        add("status context-unavailable", ui.context_unavailable, event.run_id); // from before contexts
      }
    }
  }

  function handle(event) {
    switch (event.type) {
      case "run_started": runStarted(event); break;
      case "token": {
        const b = bubble(event.run_id);
        b.text += event.text;
        b.element.textContent = b.text;
        break;
      }
      case "message": {
        const answer = answersSeen++; // counted even when not shown: the history lists it
        if (saidAlready.has(event.text)) break; // a cancellation's status line or stamp said it
        const b = bubble(event.run_id);
        b.text = event.text;
        b.answer = answer;
        b.element.innerHTML = markdown(event.text);
        break;
      }
      case "tool_call":
        titles.set(event.call_id, event.title || ui.tool_generic);
        if (event.approved_ahead) approvedAhead.add(event.call_id);
        toolLines.set(event.call_id, add("tool", `⚙ ${titles.get(event.call_id)} — ${
          event.approved_ahead ? ui.tool_approved_ahead : ui.tool_running}`, event.run_id));
        break;
      case "tool_result": {
        if (deniedCalls.has(event.call_id)) break; // its «Недостаточно прав» card says it all
        const line = toolLines.get(event.call_id) || add("tool", undefined, event.run_id);
        const title = event.title || titles.get(event.call_id) || ui.tool_generic; // never a tool id
        const ahead = approvedAhead.has(event.call_id) ? ` (${ui.tool_ran_ahead})` : "";
        line.textContent = `⚙ ${title}: ${event.outcome === "ok" ? ui.tool_done : event.message || event.outcome}${ahead}`;
        line.dataset.outcome = event.outcome;
        if (event.figures && event.figures.length) { // drawn from the tool's answer, not the model's
          window.sstools.agentFigures(event.figures, add("figures", undefined, event.run_id));
        }
        if (event.task_id) followTask(event.task_id, event.run_id);
        break;
      }
      case "confirm_required":
        // Nothing runs until the person decides: the tool line says it waits, not «выполняется».
        titles.set(event.call_id, event.title);
        setTool(event.call_id, ui.tool_waiting);
        card(event);
        runEnded(event.run_id); // paused: what it said ends here
        break;
      case "approval_waiting": waiting(event); break; // a second person must approve it
      case "permission_denied":
        deniedCalls.add(event.call_id);
        toolLines.get(event.call_id)?.remove();
        deniedCard(event);
        break;
      case "cancelled": {
        // A denied or expired card's stamp says it; any other cancellation is said in words.
        saidAlready.add(event.message);
        const shown = cards.get(event.confirmation_id);
        if (shown && ["denied", "expired", "target_moved"].includes(shown.status)) break;
        if (shown) setTool(shown.callId, ui.tool_declined);
        add("status cancelled", event.message, event.run_id);
        break;
      }
      case "error": add(`status error error-${event.code}`, event.message, event.run_id); break;
      case "done": {
        busy(false);
        const b = bubbles.get(event.run_id);
        if (b && !b.text) b.element.remove();
        else if (b) feedback.offer(b.element, b.answer);
        runEnded(event.run_id);
        break;
      }
      default: break;
    }
    previous = event.type;
  }

  // The tasks this tab remembers that the log never mentioned come back once the log has been
  // read (the stream has been quiet a moment); one the log mentions later moves to its place.
  let remembered = [];
  let quiet = null;
  function settleSoon() {
    clearTimeout(quiet);
    if (remembered.length) quiet = setTimeout(() => { for (const id of remembered) followTask(id); remembered = []; }, 400);
  }

  function connect() {
    if (source) return;
    const url = `/api/agent/conversations/${conversationId}/events`
      + (lastEventId ? `?last_event_id=${lastEventId}` : "");
    source = new EventSource(url);
    source.onopen = () => { connection.hidden = true; settleSoon(); };
    source.onerror = () => {
      connection.textContent = ui.reconnecting;
      connection.hidden = false;
    };
    source.onmessage = (message) => {
      const event = JSON.parse(message.data);
      const id = Number(message.lastEventId || 0);
      if (event.type !== "confirm_required" && id && id <= lastEventId) return;
      if (id > lastEventId) lastEventId = id;
      handle(event);
      settleSoon();
    };
  }

  // A reload: the history names the person's messages, the event log says everything else in
  // order — cards (stamped once decided), tool lines, task lines, answers; then the stream goes on.
  async function restore() {
    const response = await api(`/api/agent/conversations/${conversationId}`);
    if (!response.ok) { // gone (another user, or a new database): start afresh
      sessionStorage.removeItem(storageKey);
      sessionStorage.removeItem(tasksKey());
      conversationId = null;
      return;
    }
    const history = await response.json();
    asked = history.messages.filter((message) => message.role === "user");
    feedback.known(history.messages);
    remembered = JSON.parse(sessionStorage.getItem(tasksKey()) || "[]");
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
    await lookups.get(context.envId); // the object as this environment has it, or none
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

  // The empty page offers questions that fit its object; the first thing said hides them.
  const suggestions = document.getElementById("suggestions");
  if (suggestions) {
    new MutationObserver(() => { suggestions.hidden = transcript.childElementCount > 0; })
      .observe(transcript, { childList: true });
    suggestions.hidden = Boolean(conversationId) || transcript.childElementCount > 0;
    for (const button of suggestions.querySelectorAll(".suggestion")) {
      button.addEventListener("click", () => {
        input.value = button.textContent;
        form.requestSubmit();
      });
    }
  }

  if (conversationId) restore();
})();
