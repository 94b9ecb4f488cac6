/* The replay pages: the journal's games, and one game stepped through move by move. */
"use strict";
(function () {
  const { $, toast, t } = window.TR;
  const B = window.TRBoard;
  const cap = window.TR.title;

  async function listGames() {
    const rows = $("#game-rows");
    const res = await fetch("/api/journal");
    const data = await res.json();
    if (!res.ok) { rows.innerHTML = ""; toast(data.error || t("cannot read the journal")); return; }
    rows.innerHTML = "";
    if (!data.length) rows.innerHTML = `<tr><td colspan='5'>${t("No games yet.")}</td></tr>`;
    for (const g of data.slice().reverse()) {
      const tr = document.createElement("tr");
      // The date as the server's locale data writes it in the page's language (/api/journal's "played").
      const cells = [g.id, t(g.title || g.game), g.moves, result(g), g.played || new Date(g.created * 1000).toLocaleString()];
      cells.forEach((c, i) => {
        const td = document.createElement("td");
        if (i === 0 || i === 1) {
          const a = document.createElement("a");
          a.href = `/replay/${g.id}`;
          a.textContent = c;
          td.append(a);
        } else {
          td.textContent = c;
        }
        tr.append(td);
      });
      rows.append(tr);
    }
  }

  function result(g) {
    const o = g.outcome;
    if (o) return o.winner ? t("{player} won", { player: t(cap(o.winner)) }) : t("draw");
    return t(g.finished ? "abandoned" : "in progress");
  }

  async function importRecord(ev) {
    ev.preventDefault();
    const file = $("#import-file").files[0];
    if (!file) { toast(t("Choose a game record file first.")); return; }
    const form = new FormData();
    form.append("record", file);
    try {
      const res = await window.TR.post("/api/journal/import", form);
      toast(t("Imported as game {id}.", { id: res.id }));
      listGames();
    } catch (e) {
      toast(e.message);
    }
  }

  async function showGame(gameId) {
    const res = await fetch(`/api/journal/${gameId}`);
    const game = await res.json();
    if (!res.ok) { $("#replay-title").textContent = game.error; return; }
    const board = await B.load(game.game);
    // The rules' texts (descriptions, the outcome's reason) in the page's language (api.py).
    const words = (game.i18n || {})[document.documentElement.lang] || {};
    const rt = (s) => words[s] || s;
    const slider = $("#slider");
    slider.max = game.steps.length - 1;
    let at = 0;
    const o = game.outcome;
    const result = o ? (o.winner ? t("{player} won ({reason})", { player: t(cap(o.winner)), reason: rt(o.reason) })
      : t("a draw ({reason})", { reason: rt(o.reason) })) : t(game.finished ? "abandoned" : "in progress");
    const n = game.moves.length;  // the scripts have no plural forms: one message each
    // The sides the computer played, at its level (the journal's seats).
    const seats = Object.entries(game.seats || {}).map(([side, seat]) =>
      t("{player}: the computer (level {n})", { player: t(cap(side)), n: seat.split(":")[1] }));
    $("#replay-title").textContent = [t(n === 1 ? "{title} · game {id} · 1 move · {result}" : "{title} · game {id} · {n} moves · {result}",
      { title: t(game.title), id: game.id, n, result }), ...seats].join(" · ");
    const ol = $("#moves");
    game.moves.forEach((m, i) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.textContent = m;
      b.addEventListener("click", () => go(i + 1));
      li.append(b);
      ol.append(li);
    });

    function go(n) {
      at = Math.max(0, Math.min(game.steps.length - 1, n));
      const s = game.steps[at];
      slider.value = at;
      B.render($("#board"), board, { view: s.view, labels: s.labels, players: game.players, highlight: s.highlight });
      const card = $("#step");
      card.className = `card decision ${at ? "accepted" : "new_game"}`;
      card.dataset.ply = at;
      const scores = Object.entries(s.scores || {}).map(([k, v]) => `${t(cap(k))} ${v}`).join(" · ");
      card.innerHTML = "";
      const head = document.createElement("div");
      head.className = "headline";
      const said = s.computer ? "{n}. {player} (the computer): {move}" : "{n}. {player}: {move}";
      head.textContent = at ? t(said, { n: at, player: t(cap(s.player)), move: s.move }) : t("Start position");
      const detail = document.createElement("div");
      detail.className = "detail";
      detail.textContent = (at ? rt(s.description) + (s.unseen ? " " + t("(never seen on its own)") : "") + " — " : "") +
        t("{player} to move", { player: t(cap(s.to_move)) }) + (scores ? ` · ${scores}` : "");
      card.append(head, detail);
      if (s.clock) {  // the game clock's times after the move (docs/clock.md)
        const left = (ms) => {
          const x = Math.max(0, Math.ceil(ms / 1000));
          return `${Math.floor(x / 60)}:${String(x % 60).padStart(2, "0")}`;
        };
        const times = document.createElement("div");
        times.className = "detail clock-times";
        times.textContent = Object.entries(s.clock).map(([side, ms]) => `${t(cap(side))} ${left(ms)}`).join(" · ");
        card.append(times);
      }
      [...ol.children].forEach((li, i) => li.classList.toggle("current", i === at - 1));
      $("#first").disabled = $("#prev").disabled = at === 0;
      $("#last").disabled = $("#next").disabled = at === game.steps.length - 1;
    }

    $("#first").addEventListener("click", () => go(0));
    $("#prev").addEventListener("click", () => go(at - 1));
    $("#next").addEventListener("click", () => go(at + 1));
    $("#last").addEventListener("click", () => go(game.steps.length - 1));
    slider.addEventListener("input", () => go(+slider.value));
    document.addEventListener("keydown", (ev) => {
      if (ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
      const step = { ArrowLeft: -1, ArrowRight: 1 }[ev.key];
      if (step) { ev.preventDefault(); go(at + step); }
      if (ev.key === "Home") { ev.preventDefault(); go(0); }
      if (ev.key === "End") { ev.preventDefault(); go(game.steps.length - 1); }
    });
    go(0);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const page = $("#replay");
    if (page && page.dataset.gameId) {
      showGame(page.dataset.gameId);
    } else {
      listGames();
      $("#import-form").addEventListener("submit", importRecord);
    }
  });
})();
