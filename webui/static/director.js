// The director's page: every table and the standings, asked for again every few seconds.
(function () {
  "use strict";
  const grid = document.getElementById("director-tables");
  const standings = document.querySelector("#director-standings tbody");
  const updated = document.getElementById("director-updated");
  const every = Number(grid.dataset.refreshMs) || 2000;

  function text(tag, className, value) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    node.textContent = value;
    return node;
  }

  function card(t) {
    const article = document.createElement("article");
    article.className = "director-table" + (t.alert ? " alerted" : "") + (t.quiet ? " quiet" : "");
    article.dataset.table = t.table;
    const heading = document.createElement("h2");
    const link = text("a", "", t.table);
    link.href = "/tables/" + encodeURIComponent(t.table);
    heading.appendChild(link);
    article.appendChild(heading);
    article.appendChild(text("p", "d-players", t.players.length ? t.players.join(" – ") : "players not named"));
    const board = document.createElement("div");
    board.className = "director-board";
    // The drawing is made by the director's own server, every name in it escaped there.
    if (t.board_svg) board.innerHTML = t.board_svg;
    article.appendChild(board);
    article.appendChild(text("p", "d-summary", t.summary));
    const turn = t.result_text || (t.to_move ? t.to_move + " to move" : "");
    article.appendChild(text("p", "d-turn", turn));
    article.appendChild(text("p", "d-alert", t.alert ? "Illegal move: " + t.alert : ""));
    return article;
  }

  function row(s) {
    const tr = document.createElement("tr");
    for (const value of [s.place, s.entrant, s.points, s.played, s.wins, s.draws, s.losses]) {
      tr.appendChild(text("td", "", String(value)));
    }
    return tr;
  }

  async function refresh() {
    try {
      const [tables, table] = await Promise.all([fetch("/api/tables"), fetch("/api/standings")]);
      if (tables.ok && table.ok) {
        const shown = await tables.json();
        grid.replaceChildren(...shown.map(card));
        const rows = await table.json();
        standings.replaceChildren(...rows.map(row));
        standings.closest("table").hidden = !rows.length;
        document.getElementById("no-standings").hidden = rows.length > 0;
        const empty = document.getElementById("no-tables");
        if (empty && shown.length) empty.remove();
        updated.textContent = "· updated " + new Date().toLocaleTimeString();
      }
    } catch (error) {
      updated.textContent = "· the director's server does not answer";
    }
    setTimeout(refresh, every);
  }
  setTimeout(refresh, every);
})();
