// The /agent page's confirmation and permission cards (AGGRD-FR-002/003/004): the tool in
// words, the environment's tone, the plan's objects and digest, «Подтвердить» / «Отклонить»; once
// decided, stamped from the decision's own event. Loaded before agent.js, which makes them with
// what the transcript shares (agentCards(shared)). Names from Superset and the model's words are
// data: textContent only.
(() => {
  "use strict";
  window.sstools.agentCards = (shared) => {
    const { ui, api, add, element, format, setTool, cards, conversationId } = shared;

    // «- старое» / «+ новое» lines of one changed field: its line diff, else before and after.
    function diffLines(field) {
      const box = element("pre", "diff");
      const said = (value) => value === null || value === undefined ? ui.diff_absent
        : value === "" ? ui.diff_empty : String(value);
      // Two one-line values read best as they are («-(пусто)» / «+…»), without a hunk header.
      const oneLine = ![field.before, field.after].some((value) => String(value ?? "").includes("\n"));
      const lines = typeof field.diff === "string" && field.diff && !(oneLine && !field.truncated)
        ? field.diff.split("\n")
        : [...said(field.before).split("\n").map((one) => `-${one}`),
          ...said(field.after).split("\n").map((one) => `+${one}`)];
      for (const line of lines) {
        const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add"
          : line.startsWith("-") ? "del" : "same";
        box.append(element("span", `diff-line diff-${kind}`, `${line}\n`));
      }
      return box;
    }

    // The plan's changed fields with their values, collapsed: the server computed them from the
    // plan's own documents; they are data (Superset's CSS, SQL, names), so textContent only.
    function changesBlock(changes) {
      const block = element("details", "card-changes");
      block.append(element("summary", "", ui.changes_show));
      const legend = element("p", "meta diff-legend");
      legend.append(element("span", "diff-del", ui.changes_before), " ", element("span", "diff-add", ui.changes_after));
      block.append(legend);
      for (const object of changes) {
        const part = element("section", "change-object");
        part.append(element("h4", "", String(object.title)));
        for (const field of Array.isArray(object.fields) ? object.fields : []) {
          const head = element("p", "change-field", String(field.label));
          if (field.field && field.field !== field.label) head.title = String(field.field);
          part.append(head);
          if (field.omitted) part.append(element("p", "meta", ui.changes_omitted));
          else part.append(diffLines(field));
          if (field.truncated) part.append(element("p", "meta change-cut", ui.changes_truncated));
        }
        block.append(part);
      }
      return block;
    }

    function card(event) {
      if (cards.has(event.confirmation_id)) return; // re-sent on reconnect: shown once
      const decision = event.decision;
      const item = add(`card tone-${decision.tone} level-${decision.level}`, undefined, event.run_id);
      cards.set(event.confirmation_id, { element: item, callId: event.call_id, title: event.title, status: null });
      item.tabIndex = -1;
      item.setAttribute("role", "group");
      item.dataset.confirmationId = event.confirmation_id;

      const head = element("div", "card-head");
      const badge = element("span", "badge", decision.kind === "read" ? ui.read_only
        : decision.stage === "prod" ? ui.production : (decision.stage || "git"));
      head.append(badge, element("strong", "", event.title));
      item.append(head, element("p", "card-prompt", decision.prompt));
      if (decision.impact) item.append(element("p", "card-impact", `${ui.impact}: ${decision.impact}`));
      // The plan's objects are names from Superset: data, so textContent only.
      if (Array.isArray(decision.objects) && decision.objects.length) {
        const list = element("ul", "card-objects");
        list.setAttribute("aria-label", ui.plan_objects);
        for (const line of decision.objects) list.append(element("li", "", String(line)));
        item.append(list);
      }
      const changes = Array.isArray(decision.changes) ? decision.changes : [];
      if (changes.length) item.append(changesBlock(changes));
      if (typeof decision.digest === "string" && decision.digest) {
        const digest = element("p", "card-digest", `${ui.plan_digest}: ${decision.digest.slice(0, 12)}…`);
        digest.title = format(ui.plan_digest_title, { digest: decision.digest });
        item.append(digest);
      }
      // The call's arguments as labelled values, named by the server from the page's context and
      // the environments registry; the model's words are data, so textContent only.
      const given = Array.isArray(decision.arguments) ? decision.arguments : [];
      if (given.length) {
        const args = element("dl", "card-args");
        args.setAttribute("aria-label", ui.arguments);
        for (const argument of given) {
          args.append(element("dt", "", String(argument.label)), element("dd", "", String(argument.value)));
        }
        item.append(args);
      }

      const actions = element("div", "card-actions");
      const confirm = element("button", decision.tone === "destructive" ? "danger" : "primary", ui.confirm);
      const deny = element("button", "", ui.deny);
      confirm.type = deny.type = "button";
      // Why, with a denial (optional): the agent reads it and proposes something else.
      const why = element("input", "card-reason");
      why.type = "text";
      why.maxLength = 500;
      why.placeholder = ui.deny_reason_placeholder;
      why.setAttribute("aria-label", ui.deny_reason);
      actions.append(confirm, deny, why);
      item.append(actions);

      // The card is stamped by the decision's own event (run_started.decided), not by the click.
      const decide = async (choice) => {
        confirm.disabled = deny.disabled = why.disabled = true;
        const reason = why.value.trim();
        const body = choice === "deny" && reason ? { decision: choice, reason } : { decision: choice };
        const response = await api(
          `/api/agent/conversations/${conversationId()}/confirmations/${event.confirmation_id}`,
          { method: "POST", body },
        );
        // awaiting_second: the approval_waiting event re-draws the card (live and on a reload).
        if (!item.dataset.decided) item.dataset.decided = response.ok ? choice : "late";
      };
      confirm.addEventListener("click", () => decide("approve"));
      deny.addEventListener("click", () => decide("deny"));
      item.focus({ preventScroll: true }); // the transcript follows its end itself
    }

    // «Подтверждено: alice, 17:20» — in the person's own clock, with the day unless it is today.
    function moment(at) {
      const when = new Date(at);
      const time = when.toLocaleTimeString("ru-RU", { hour: "2-digit", minute: "2-digit" });
      if (when.toDateString() === new Date().toDateString()) return time;
      return `${when.toLocaleDateString("ru-RU", { day: "numeric", month: "long" })}, ${time}`;
    }

    const STAMPS = {
      approved: ["approve", "card_approved"], denied: ["deny", "card_denied"],
      expired: ["expired", "card_expired"], target_moved: ["target-moved", "card_target_moved"],
    };
    const ROLE_WORDS = { analyst: ui.role_analyst, engineer: ui.role_engineer, admin: ui.role_admin };

    // The requester approved a write that needs two people (approval_waiting): the card loses its
    // buttons and says it waits for a second person, with the request's page to share.
    function waiting(event) {
      const shown = cards.get(event.confirmation_id);
      if (!shown || shown.status) return;
      shown.element.dataset.decided = "awaiting-second";
      shown.element.querySelector(".card-actions")?.remove();
      shown.element.querySelector(".card-waiting")?.remove();
      const box = element("div", "card-waiting");
      box.append(element("p", "card-stamp stamp-awaiting-second", format(ui.card_awaiting_second, {
        who: event.by, when: moment(event.at), role: ROLE_WORDS[event.approver_role] || ui.role_admin,
        until: moment(event.expires_at),
      })));
      const link = element("a", "approval-link", ui.card_awaiting_link);
      link.href = event.link.startsWith("/approvals/") ? event.link : "/approvals";
      box.append(link);
      shown.element.append(box);
      setTool(shown.callId, ui.tool_awaiting_second);
    }

    // The decision a resumed run starts from: the card loses its buttons and says who and when;
    // its tool line says what happens now. A decision without its event (a log written before
    // run_started carried it) still settles the card, unstamped.
    function settle(confirmationId, decided) {
      const shown = cards.get(confirmationId);
      if (!shown || shown.status) return;
      shown.status = decided ? decided.status : "settled";
      const [value, words] = STAMPS[shown.status] || ["settled", "card_settled"];
      shown.element.dataset.decided = value;
      shown.element.querySelector(".card-actions")?.remove();
      shown.element.querySelector(".card-waiting")?.remove();
      const second = shown.status === "approved" && decided?.first_by;
      let said = format(ui[second ? "card_second_approved" : words], {
        who: decided?.by || "", when: decided ? moment(decided.at) : "", first: decided?.first_by || "",
      });
      if (decided?.reason) said += format(ui.card_denied_because, { reason: decided.reason });
      const stamp = element("p", `card-stamp stamp-${value}`, said); // the reason is the person's: text
      if (decided) stamp.title = new Date(decided.at).toLocaleString("ru-RU");
      shown.element.append(stamp);
      if (document.activeElement === shown.element) shown.element.blur(); // nothing left to do there
      if (shown.status === "approved") setTool(shown.callId, ui.tool_running);
      else if (shown.status === "denied" || shown.status === "target_moved") setTool(shown.callId, ui.tool_denied);
      else if (shown.status === "expired") setTool(shown.callId, ui.tool_declined);
    }

    function deniedCard(event) {
      const item = add("card tone-destructive denied", undefined, event.run_id);
      item.tabIndex = -1;
      item.setAttribute("role", "alert");
      // The server's sentence names the tool by its title and the roles in Russian; never ids.
      const dismiss = element("button", "", ui.dismiss);
      dismiss.type = "button";
      dismiss.addEventListener("click", () => item.remove());
      item.append(element("strong", "", ui.access_denied), element("p", "", event.message), dismiss);
      item.focus({ preventScroll: true }); // the transcript follows its end itself
    }

    return { card, settle, waiting, deniedCard };
  };
})();
