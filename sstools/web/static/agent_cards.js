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

    // The server's words for a refused answer to a card: a 409's sentence, a 422's field message.
    async function refusal(response) {
      try {
        const detail = (await response.json()).detail;
        if (typeof detail === "string") return detail;
        if (Array.isArray(detail) && detail.length && typeof detail[0].msg === "string") return detail[0].msg;
      } catch (error) { /* not JSON: the generic words below */ }
      return ui.edit_failed;
    }

    // «Изменить…»: the arguments the server lets the person change (decision.edits), each within
    // its choices. The server checks the edit, plans the call again and shows a new card with
    // its own impact and digest; this one is stamped «Изменено». Labels are data: text only.
    function editForm(event, lock) {
      const edits = Array.isArray(event.decision.edits) ? event.decision.edits : [];
      if (!edits.length) return null;
      const form = element("form", "card-edit");
      form.hidden = true;
      const read = [];
      for (const edit of edits) {
        const row = element("fieldset", "card-edit-field");
        row.append(element("legend", "", String(edit.label)));
        const choices = Array.isArray(edit.choices) ? edit.choices : [];
        if (edit.kind === "choice") {
          const select = element("select");
          select.setAttribute("aria-label", String(edit.label));
          for (const choice of choices) {
            const option = element("option", "", String(choice.label));
            option.value = String(choice.value);
            option.selected = choice.value === edit.value;
            select.append(option);
          }
          row.append(select);
          read.push([edit, () => select.value]);
        } else if (edit.kind === "subset") {
          const boxes = choices.map((choice) => {
            const option = element("label", "card-edit-option");
            const box = element("input");
            box.type = "checkbox";
            box.value = String(choice.value);
            box.checked = Array.isArray(edit.value) && edit.value.includes(choice.value);
            option.append(box, ` ${choice.label}`);
            row.append(option);
            return box;
          });
          read.push([edit, () => boxes.filter((box) => box.checked).map((box) => box.value)]);
        } else {
          const text = element(edit.field === "message" ? "textarea" : "input");
          if (text.tagName === "INPUT") text.type = "text";
          text.value = String(edit.value);
          if (edit.max_length) text.maxLength = edit.max_length;
          text.setAttribute("aria-label", String(edit.label));
          row.append(text);
          read.push([edit, () => text.value]);
        }
        form.append(row);
      }
      const problem = element("p", "card-edit-problem");
      problem.setAttribute("role", "alert");
      problem.hidden = true;
      const replan = element("button", "primary", ui.edit_replan);
      replan.type = "submit";
      form.append(problem, replan);
      form.addEventListener("submit", async (submitted) => {
        submitted.preventDefault();
        const args = {};
        for (const [edit, value] of read) {
          const now = value();
          if (JSON.stringify(now) === JSON.stringify(edit.value)) continue;
          // A mapping's entry (edit.key: the source database) joins the others of its field.
          if (edit.key) args[edit.field] = { ...(args[edit.field] || {}), [edit.key]: now };
          else args[edit.field] = now;
        }
        const say = (words) => { problem.textContent = words; problem.hidden = false; };
        if (!Object.keys(args).length) { say(ui.edit_nothing); return; }
        lock(true);
        replan.disabled = true;
        const response = await api(
          `/api/agent/conversations/${conversationId()}/confirmations/${event.confirmation_id}`,
          { method: "POST", body: { decision: "edit", args } },
        );
        if (response.ok) return; // the decision's event stamps this card; a new one follows
        say(await refusal(response));
        lock(false);
        replan.disabled = false;
      });
      return form;
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
        : decision.stage === "prod" ? ui.production : (ui[`stage_${decision.stage}`] || "Git"));
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
      actions.append(confirm, deny);
      // dev only (never prod; the server checks again): approve the same tool, environment and
      // kind without a card for the rest of this conversation. Off unless the person ticks it.
      let similar = null;
      if (decision.stage === "dev" && decision.kind === "write") {
        const option = element("label", "card-similar");
        similar = element("input");
        similar.type = "checkbox";
        option.title = ui.approve_similar_title;
        option.append(similar, ` ${ui.approve_similar}`);
        actions.append(option);
      }
      const lock = (locked) => {
        confirm.disabled = deny.disabled = why.disabled = locked;
        if (similar) similar.disabled = locked;
      };
      const form = editForm(event, lock);
      if (form) {
        const change = element("button", "", ui.edit_card);
        change.type = "button";
        change.setAttribute("aria-expanded", "false");
        change.addEventListener("click", () => {
          form.hidden = !form.hidden;
          change.setAttribute("aria-expanded", String(!form.hidden));
          if (!form.hidden) form.querySelector("select, input, textarea")?.focus();
        });
        actions.append(change);
      }
      actions.append(why);
      const problem = element("p", "card-edit-problem");
      problem.setAttribute("role", "alert");
      problem.hidden = true;
      item.append(actions, problem);
      if (form) item.append(form);

      // The card is stamped by the decision's own event (run_started.decided), not by the click.
      const decide = async (choice) => {
        lock(true);
        const reason = why.value.trim();
        const body = choice === "deny" && reason ? { decision: choice, reason } : { decision: choice };
        if (choice === "approve" && similar?.checked) body.similar = true;
        const response = await api(
          `/api/agent/conversations/${conversationId()}/confirmations/${event.confirmation_id}`,
          { method: "POST", body },
        );
        if (response.status === 422) { // refused as asked (e.g. «похожие» here): say why, retry
          problem.textContent = await refusal(response);
          problem.hidden = false;
          lock(false);
          return;
        }
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
      edited: ["edited", "card_edited"],
    };
    const ROLE_WORDS = { analyst: ui.role_analyst, engineer: ui.role_engineer, admin: ui.role_admin };

    // The requester approved a write that needs two people (approval_waiting): the card loses its
    // buttons and says it waits for a second person, with the request's page to share.
    // Nothing left to answer on the card: its buttons, its edit form and what they said go.
    function unanswerable(item) {
      for (const part of item.querySelectorAll(".card-actions, .card-edit, .card-edit-problem")) {
        part.remove();
      }
    }

    function waiting(event) {
      const shown = cards.get(event.confirmation_id);
      if (!shown || shown.status) return;
      shown.element.dataset.decided = "awaiting-second";
      unanswerable(shown.element); // a request waiting for a second person is not edited either
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
      unanswerable(shown.element);
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
      else if (shown.status === "edited") setTool(shown.callId, ui.tool_edited);
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
