// 👍 / 👎 under each finished answer of the agent (issue 39 §4): a click is stored with the turn
// (PUT …/messages/{id}/feedback), 👎 opens an optional comment with «Отправить», and a reload shows
// what was chosen (the history says it). Loaded before agent.js, which offers each finished
// answer (agentFeedback(shared).offer). The thumbs are drawn (SVG), not a font's emoji (a screen
// without an emoji font shows boxes), and add no text to the answer; their names (aria-label)
// come from the catalogue.
(() => {
  "use strict";
  window.sstools.agentFeedback = (shared) => {
    const { ui, api, element, conversationId } = shared;
    let answers = []; // the conversation's answers as the history lists them, in order
    const SVG = "http://www.w3.org/2000/svg";
    const THUMBS = { // Feather's thumbs-up and thumbs-down (MIT)
      up: "M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3z"
        + "M7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3",
      down: "M10 15v4a3 3 0 0 0 3 3l4-9V2H5.72a2 2 0 0 0-2 1.7l-1.38 9a2 2 0 0 0 2 2.3z"
        + "m7-13h2.67A2.31 2.31 0 0 1 22 4v7a2.31 2.31 0 0 1-2.33 2H17",
    };

    function known(messages) {
      answers = messages.filter((message) => message.role === "assistant");
    }

    async function reread() {
      const response = await api(`/api/agent/conversations/${conversationId()}`);
      if (response.ok) known((await response.json()).messages);
    }

    // The index-th answer of the conversation (its `message` events counted from the first):
    // rows and events are written in one commit, so a finished run's answer is always listed.
    async function offer(bubble, index) {
      if (index === undefined || bubble.querySelector(".feedback")) return;
      if (index >= answers.length) {
        try { await reread(); } catch { return; } // no row to rate: no buttons
      }
      const answer = answers[index];
      if (answer && !bubble.querySelector(".feedback")) bubble.append(controls(answer));
    }

    function vote(rating, label) {
      const button = element("button", "feedback-vote");
      button.type = "button";
      button.dataset.rating = rating;
      button.setAttribute("aria-label", label);
      button.title = label;
      const icon = document.createElementNS(SVG, "svg");
      icon.setAttribute("viewBox", "0 0 24 24");
      icon.setAttribute("aria-hidden", "true");
      icon.setAttribute("class", "feedback-icon");
      const thumb = document.createElementNS(SVG, "path");
      thumb.setAttribute("d", THUMBS[rating]);
      icon.append(thumb);
      button.append(icon);
      return button;
    }

    function controls(answer) {
      const row = element("div", "feedback");
      row.setAttribute("role", "group");
      row.setAttribute("aria-label", ui.feedback_group);
      const up = vote("up", ui.feedback_up);
      const down = vote("down", ui.feedback_down);
      const said = element("span", "feedback-status");
      said.setAttribute("role", "status");
      row.append(up, down, said);
      let given = answer.feedback;
      let form = null; // made on the first 👎: an unrated answer carries no words of ours

      function show() {
        up.setAttribute("aria-pressed", String(given?.rating === "up"));
        down.setAttribute("aria-pressed", String(given?.rating === "down"));
        row.dataset.rating = given ? given.rating : "";
        said.textContent = given?.comment ? ui.feedback_commented : given ? ui.feedback_saved : "";
      }

      async function save(rating, comment) {
        const body = comment ? { rating, comment } : { rating };
        let response;
        try {
          response = await api(
            `/api/agent/conversations/${conversationId()}/messages/${answer.id}/feedback`,
            { method: "PUT", body },
          );
        } catch { response = null; }
        if (!response?.ok) { said.textContent = ui.feedback_failed; return false; }
        given = await response.json();
        show();
        return true;
      }

      function commentForm() {
        const made = element("form", "feedback-comment");
        const text = element("textarea");
        text.rows = 2;
        text.maxLength = 1000;
        text.placeholder = ui.feedback_comment_placeholder;
        text.setAttribute("aria-label", ui.feedback_comment);
        const send = element("button", "", ui.send);
        send.type = "submit";
        made.append(text, send);
        made.addEventListener("submit", async (event) => {
          event.preventDefault();
          send.disabled = true;
          if (await save("down", text.value.trim())) made.hidden = true;
          send.disabled = false;
        });
        row.append(made);
        return made;
      }

      function openComment() {
        form = form || commentForm();
        form.querySelector("textarea").value = given?.comment || "";
        form.hidden = false;
        form.querySelector("textarea").focus();
      }

      up.addEventListener("click", async () => {
        if (given?.rating === "up") return;
        if (await save("up") && form) form.hidden = true;
      });
      down.addEventListener("click", async () => {
        // Already 👎: the comment opens again as it was, nothing is lost by a second click.
        if (given?.rating === "down" || await save("down")) openComment();
      });
      show();
      return row;
    }

    return { known, offer };
  };
})();
