/* Teaching at the table (issue 31, items 1 and 4; docs/teaching.md): where the piece the board
   shows lifted may go (the snapshot's teach.lifted, from the referee), and "show me" — the
   moves of a piece tapped on the board, or where a placement may go (GET /api/teach/moves).
   live.js draws what overlay() returns on its board and calls render() with each snapshot. */
"use strict";
(function () {
  const { $, act, t, toast } = window.TR;
  const cap = window.TR.title;
  let live = null;
  let redraw = () => {};
  let chosen = null; // "show me": {key, data} for the position it was asked in

  const key = () => `${live.game_id}:${live.ply}:${live.to_move}`;
  const personToMove = () => !live.outcome && ((live.seats || {})[live.to_move] || "person") === "person";
  const on = () => !!(live && live.teach && live.teach.on);

  /* What the board draws: the lifted piece's destinations (the board wins), else the chosen one's. */
  function overlay(snapshot) {
    live = snapshot;
    if (!on() || live.outcome) return null;
    const lifted = live.teach.lifted;
    if (lifted) return { from: lifted.space, destinations: lifted.destinations, marks: lifted.marks };
    if (chosen && chosen.key === key()) {
      const d = chosen.data;
      return { from: d.space || null, destinations: d.destinations, marks: d.marks };
    }
    return null;
  }

  /* Tapping a space of the referee's board asks for its piece's moves ("show me"). */
  function onSpace(snapshot) {
    live = snapshot;
    if (!on() || !personToMove()) return undefined;
    return (space) => show(space);
  }

  async function show(space) {
    const url = "/api/teach/moves" + (space ? `?space=${encodeURIComponent(space)}` : "");
    const asked = key();
    let data;
    try {
      const res = await fetch(url, { credentials: "same-origin" });
      data = await res.json();
      if (!res.ok) throw new Error(data.error || res.statusText);
    } catch (e) {
      toast(t(e.message));
      return;
    }
    if (!live || asked !== key()) return; // the game moved on meanwhile
    chosen = { key: asked, data };
    render(live);
    redraw();
  }

  function clear() {
    chosen = null;
    render(live);
    redraw();
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* The marks' key: only the kinds shown now. */
  function legend(marks) {
    const box = el("div", "key teach-key");
    box.append(el("span", "k-dest", t("may end here")));
    const kinds = new Set((marks || []).map((m) => m.kind));
    if (kinds.has("bounce")) box.append(el("span", "k-pass bounce", t("may bounce off this ring")));
    if (kinds.has("attack")) box.append(el("span", "k-pass attack", t("may attack this piece")));
    return box;
  }

  function render(snapshot, draw) {
    live = snapshot;
    if (draw) redraw = draw;
    const card = $("#teach");
    if (!card) return;
    const admin = window.TR.session.admin;
    card.innerHTML = "";
    card.hidden = !on() && !admin;
    if (card.hidden) return;
    if (chosen && chosen.key !== key()) chosen = null;
    if (on() && !live.outcome) {
      const lifted = live.teach.lifted;
      if (lifted) {
        const n = lifted.destinations.length;
        const head = el("div", "headline");
        head.dataset.lifted = lifted.space;
        head.textContent = lifted.side && lifted.side !== lifted.to_move
          ? t("Not your piece: {player} to move", { player: t(cap(lifted.to_move)) })
          : n ? t("Lifted from {space} — where it may go: {n}", { space: lifted.space, n })
            : t("That piece cannot move now");
        card.append(head);
        if (n) card.append(legend(lifted.marks));
      }
      if (personToMove()) {
        const p = el("p", "hint", t("Show me: tap a piece on the board to see its moves."));
        const place = el("button", "", t("Where can a piece be placed?"));
        place.type = "button";
        place.id = "teach-place";
        place.addEventListener("click", () => show(""));
        card.append(p, place);
      }
      if (chosen && !lifted) {
        const d = chosen.data;
        const head = el("div", "headline teach-chosen");
        head.dataset.space = d.space;
        head.textContent = d.space ? t("Moves of the piece on {space}: {n}", { space: d.space, n: d.count })
          : d.count ? t("Where a piece may be placed: {n} moves", { n: d.count }) : t("No placement is legal now");
        const ol = el("ol", "teach-moves");
        for (const m of d.moves) {
          const li = el("li", "", `${m.move} — ${m.description}`);
          li.dataset.move = m.move;
          ol.append(li);
        }
        if (d.count > d.moves.length) ol.append(el("li", "more", t("and {n} more", { n: d.count - d.moves.length })));
        const done = el("button", "", t("Clear"));
        done.type = "button";
        done.addEventListener("click", clear);
        card.append(head);
        if (d.count) card.append(legend(d.marks), ol);
        card.append(done);
      }
    } else if (!on()) {
      card.append(el("p", "hint", t("Teaching is off at this table.")));
    }
    if (admin) {
      const label = el("label", "teach-toggle");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.id = "teach-on";
      box.checked = on();
      box.addEventListener("change", () => act("/api/teach", { on: box.checked }));
      label.append(box, " " + t("Teaching: show where a lifted piece may go"));
      card.append(label);
    }
  }

  window.TRTeach = { overlay, onSpace, render };
})();
