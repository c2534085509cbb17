// The chat's charts (issue 37 §4): drawn from a tool's own answer — the tool_result event's
// `figures`, made on the server from the domain API's JSON — never from numbers in the model's
// words. Each is bars (Chart.js, vendored) and the same numbers as a table: the table is what a
// screen reader reads and what a phone shows. Titles and labels are data: text only.
(() => {
  "use strict";
  const { ui } = window.sstools;
  const COLOURS = ["#3056d3", "#d97706", "#059669"];
  const number = (value) => (value === null || value === undefined ? "—"
    : Number(value).toLocaleString("ru-RU", { maximumFractionDigits: 2 }));

  function table(figure) {
    const element = document.createElement("table");
    element.className = "figure-table";
    const head = element.createTHead().insertRow();
    for (const text of [figure.label, ...figure.series.map((one) => one.name)]) {
      const cell = document.createElement("th");
      cell.scope = "col";
      cell.textContent = text;
      head.appendChild(cell);
    }
    const body = element.createTBody();
    figure.labels.forEach((label, index) => {
      const row = body.insertRow();
      const name = document.createElement("th");
      name.scope = "row";
      name.textContent = label;
      row.appendChild(name);
      for (const one of figure.series) row.insertCell().textContent = number(one.values[index]);
    });
    return element;
  }

  function bars(figure, canvas) {
    if (!window.Chart) return; // the table still says it all
    new window.Chart(canvas, {
      type: "bar",
      data: {
        labels: figure.labels,
        datasets: figure.series.map((one, index) => ({
          label: one.name, data: one.values, backgroundColor: COLOURS[index % COLOURS.length],
        })),
      },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        indexAxis: figure.labels.length > 8 ? "y" : "x",
        plugins: { legend: { display: figure.series.length > 1 } },
      },
    });
  }

  // The figures of one tool result, into the transcript item given.
  window.sstools.agentFigures = (figures, item) => {
    for (const figure of figures) {
      const shown = document.createElement("figure");
      shown.className = "figure";
      const caption = document.createElement("figcaption");
      caption.textContent = figure.title || ui.figure_untitled;
      const frame = document.createElement("div");
      frame.className = "figure-bars";
      frame.setAttribute("aria-hidden", "true"); // the table below is the readable form
      const canvas = document.createElement("canvas");
      frame.appendChild(canvas);
      shown.append(caption, frame, table(figure));
      item.appendChild(shown);
      bars(figure, canvas);
    }
  };
})();
