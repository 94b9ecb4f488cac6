/* The camera set-up page: the camera's picture, refreshed a few times a second while the page
   is open and visible, with the lock drawn over it as SVG (from /api/setup/overlay), and the
   calibration steps. Everything here needs the admin PIN; a watcher sees no controls. */
"use strict";
(function () {
  const { $, post, session, t } = window.TR;
  const SVG = "http://www.w3.org/2000/svg";
  const REFRESH_MS = 250; // a few pictures a second; none while the page is hidden
  const VERDICT = {
    read: t("read"), occupied: t("a piece, not named"), hidden: t("hidden behind a piece"), empty: t("empty"),
    unreadable: t("unreadable"), unknown: t("not read yet"),
  };
  let running = false;
  let shown = "#snap-a";
  let seq = 0;
  let setup = null;
  let fit = null; // fitting an own board: {reference, spaces, handles: {id: [x, y]}, dragging}
  let frameSize = null;

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }

  /* Load the next picture into the hidden <img>, then swap: the picture never blinks. */
  function loadPicture() {
    return new Promise((resolve) => {
      const next = $(shown === "#snap-a" ? "#snap-b" : "#snap-a");
      next.onload = () => {
        next.hidden = false;
        $(shown).hidden = true;
        shown = "#" + next.id;
        resolve(true);
      };
      next.onerror = () => resolve(false);
      next.src = `/api/setup/snapshot.jpg?n=${++seq}`;
    });
  }

  function describe(s) {
    const what = s.verdict === "read" ? t("read: {tokens}", { tokens: s.names.join(" + ") }) : VERDICT[s.verdict] || s.verdict;
    return `${s.id}: ${what}` + (s.why ? ` — ${s.why}` : "");
  }

  function layer(id) {
    let g = document.getElementById(id);
    if (!g) g = el("g", { id }, $("#overlay"));
    return g;
  }

  function drawOverlay(ov) {
    const svg = $("#overlay");
    const g = layer("lock-layer");
    g.replaceChildren();
    layer("fit-layer"); // drawn above the lock, only when the handles move
    if (!ov.width) return;
    frameSize = [ov.width, ov.height];
    svg.setAttribute("viewBox", `0 0 ${ov.width} ${ov.height}`);
    if (ov.outline.length) {
      el("polygon", { class: "o-outline", points: ov.outline.map((p) => p.join(",")).join(" ") }, g);
    }
    if (fit) return; // while fitting, the spaces shown are the fit's
    const r = Math.max(4, ov.width / 160);
    for (const s of ov.spaces) {
      const c = el("circle", { class: `o-space v-${s.verdict}`, cx: s.x, cy: s.y, r, "data-space": s.id,
                               "data-verdict": s.verdict }, g);
      el("title", {}, c).textContent = describe(s);
      c.addEventListener("click", () => { $("#space-info").textContent = describe(s); });
    }
  }

  function lockText(ov) {
    const lock = {
      locked: t("Board locked: the sheet outline and every space are drawn on the picture."),
      searching: t("Looking for the four corner markers…"),
      occluded: t("Corner markers covered: reading is frozen until they are in view."),
      "no frame": t("No picture from the camera yet."),
    }[ov.lock] || ov.lock;
    const reading = ov.reading === "setup" ? " " + t("Set-up mode: nothing is read until the empty board is learned.")
      : ov.reading_age === null ? "" : " " + t("Verdicts read {s} s ago.", { s: ov.reading_age.toFixed(1) });
    const ev = ov.exposure_ev;
    const exposure = !ev ? ""
      : " " + t(ev < 0 ? "Exposure turned down {ev} stop for the sheet: its paper was too bright."
                       : "Exposure turned up {ev} stop for the sheet: its paper was too dark.",
                { ev: Math.abs(ev).toFixed(1) });
    return lock + reading + exposure + smallBoard(ov);
  }

  /* The board too small in the picture for the game's reader (tableref/camera_setup.py's
     read_scale): said beside the lock with the figures, before anyone learns a board that
     would never be read whole. */
  function smallBoard(ov) {
    if (ov.px_per_mm === null || ov.needed_px_per_mm === null || ov.px_per_mm >= ov.needed_px_per_mm) return "";
    // one literal: the catalog test finds the page's strings by their first quoted argument
    return " " + t("The board is small in the picture: at {space} a millimetre is {px} px, and this game's pieces are read from {need} px. Move the camera closer, or let the board fill more of the picture.",
                   { space: ov.smallest_at, px: ov.px_per_mm.toFixed(2), need: ov.needed_px_per_mm.toFixed(2) });
  }

  async function tick() {
    if (!running) return;
    if (!document.hidden && session.admin) {
      try {
        const [res] = await Promise.all([fetch("/api/setup/overlay", { credentials: "same-origin" }), loadPicture()]);
        if (res.ok) {
          const ov = await res.json();
          drawOverlay(ov);
          $("#lock-state").textContent = lockText(ov);
          $("#setup-view").dataset.lock = ov.lock;
          if (setup && setup.mode !== ov.reading) refreshState(); // e.g. a step's reader taken by the source
        }
      } catch (e) { /* the next tick tries again */ }
    }
    setTimeout(tick, REFRESH_MS);
  }

  /* -- fitting an own board: four handles, the rest through their homography -------------- */

  /* The homography taking four points src[i] to dst[i] (8 unknowns, h33 = 1). */
  function homography(src, dst) {
    const A = [];
    for (let i = 0; i < 4; i++) {
      const [x, y] = src[i], [u, v] = dst[i];
      A.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
      A.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
    }
    for (let c = 0; c < 8; c++) { // Gaussian elimination with partial pivoting
      let best = c;
      for (let r = c + 1; r < 8; r++) if (Math.abs(A[r][c]) > Math.abs(A[best][c])) best = r;
      if (Math.abs(A[best][c]) < 1e-12) return null; // three handles in a line
      [A[c], A[best]] = [A[best], A[c]];
      for (let r = 0; r < 8; r++) {
        if (r === c) continue;
        const f = A[r][c] / A[c][c];
        for (let k = c; k < 9; k++) A[r][k] -= f * A[c][k];
      }
    }
    const h = A.map((row, i) => row[8] / row[i]);
    return [...h, 1];
  }

  function project(H, x, y) {
    const w = H[6] * x + H[7] * y + H[8];
    return [(H[0] * x + H[1] * y + H[2]) / w, (H[3] * x + H[4] * y + H[5]) / w];
  }

  function drawFit() {
    const g = layer("fit-layer");
    g.replaceChildren();
    if (!fit || !frameSize) return;
    const byId = Object.fromEntries(fit.spaces.map((s) => [s.id, s]));
    const H = homography(fit.reference.map((id) => [byId[id].x, byId[id].y]), fit.reference.map((id) => fit.handles[id]));
    const r = Math.max(4, frameSize[0] / 160);
    if (H) {
      for (const s of fit.spaces) {
        const [x, y] = project(H, s.x, s.y);
        el("circle", { class: "o-fit", cx: x, cy: y, r: r * 0.8, "data-fit": s.id }, g);
      }
    }
    for (const id of fit.reference) {
      const [x, y] = fit.handles[id];
      const h = el("circle", { class: "handle", cx: x, cy: y, r: r * 2.2, "data-handle": id }, g);
      el("title", {}, h).textContent = t("put the {space} handle on the centre of {space}", { space: id });
      h.addEventListener("pointerdown", (ev) => {
        ev.preventDefault();
        fit.dragging = id;
        $("#overlay").setPointerCapture(ev.pointerId);
      });
      el("text", { class: "handle-label", x: x + r * 2.6, y: y - r * 2.2, "font-size": r * 3.2 }, g).textContent = id;
    }
  }

  function framePoint(ev) {
    const svg = $("#overlay");
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    return [Math.min(Math.max(p.x, 0), frameSize[0]), Math.min(Math.max(p.y, 0), frameSize[1])];
  }

  async function startFit() {
    const res = await fetch("/api/setup/board", { credentials: "same-origin" });
    const data = await res.json();
    if (!res.ok) { showResult("failed", data.error); return; }
    fit = { reference: data.reference, spaces: data.spaces, handles: data.start, dragging: null };
    $("#fit-help").replaceChildren(...data.reference.map((id) => {
      const li = document.createElement("li");
      li.textContent = t("Put the {space} handle on the centre of {space}.", { space: id });
      return li;
    }));
    $("#fit-controls").hidden = false;
    $("#fit-start").hidden = true;
    $("#overlay").classList.add("fitting");
    drawFit();
  }

  function endFit() {
    fit = null;
    $("#overlay").classList.remove("fitting");
    $("#fit-controls").hidden = true;
    $("#fit-start").hidden = false;
    $("#fit-help").replaceChildren();
    drawFit();
  }

  async function saveFit() {
    const handles = fit.handles;
    try {
      const out = await post("/api/setup/geometry", { handles });
      showResult("done", out.result);
      endFit();
    } catch (e) {
      showResult("failed", e.message);
    }
    await refreshState();
  }

  function showResult(state, text) {
    const res = $("#job-result");
    res.dataset.state = state;
    res.textContent = t(state === "done" ? "Done: {result}" : "Failed: {result}", { result: text });
  }

  function showState(st) {
    setup = st;
    $("#cal-file").textContent = t(st.calibrated ? "{title}: the calibration is saved to {path}."
      : "{title}: the calibration is saved to {path} (not made yet).", { title: t(st.title), path: st.calibration });
    const lens = st.lens_step || {};
    $("#lens-file").textContent = st.lens
      ? (lens.error_px !== null && lens.error_px !== undefined
        ? t("In use: {path} (reprojection error {px} px: {verdict}).", { path: st.lens, px: lens.error_px.toFixed(2), verdict: t(lens.verdict) })
        : t("In use: {path}.", { path: st.lens }))
      : t("In use: none (an ideal pinhole); a measured lens is saved to {path}.", { path: lens.saves_to });
    $("#lens-relearn").hidden = !lens.relearn;
    $("#colour-step").hidden = !st.colour_game;
    $("#own-board").hidden = !st.own_board;
    if (st.own_board) {
      $("#fit-file").textContent = st.own_board.why_not ? st.own_board.why_not
        : t(st.own_board.fitted ? "Fitted: {path}." : "The fit is saved to {path}.", { path: st.own_board.geometry });
      $("#fit-start").hidden = Boolean(st.own_board.why_not) || Boolean(fit);
    }
    if (st.colours) {
      $("#layout-spaces").replaceChildren(...Object.entries(st.colours.layout).map(([space, tokens]) => {
        const li = document.createElement("li");
        li.textContent = `${space}: ${tokens.join(" + ")}`;
        return li;
      }));
    }
    const banner = $("#setup-banner");
    banner.hidden = st.mode !== "setup";
    banner.textContent = st.calibrated && st.colour_game
      ? t("Set-up: the empty board is learned; now lay out the pieces and learn their colours. The referee waits.")
      : t("Set-up: the camera is not calibrated yet. Clear the board and learn the empty board. The referee waits.");
    if (st.job) showJob(st.job);
  }

  function showJob(job) {
    $("#job").hidden = job.state !== "running";
    $("#job-bar").value = job.fraction;
    $("#job-text").textContent = job.progress;
    const res = $("#job-result");
    res.dataset.state = job.state;
    res.textContent = job.state === "running" ? "" : t(job.state === "done" ? "Done: {result}" : "Failed: {result}", { result: job.result });
    for (const b of ["#cal-empty", "#cal-colours", "#cal-lens"]) $(b).disabled = job.state === "running";
  }

  async function refreshState() {
    const res = await fetch("/api/setup", { credentials: "same-origin" });
    if (res.ok) showState(await res.json());
  }

  async function runStep(step) {
    const body = { step };
    if (step === "colours") body.position = $("#cal-position").value;
    let job;
    try {
      job = await post("/api/setup/calibrate", body);
    } catch (e) {
      $("#job-result").dataset.state = "failed";
      $("#job-result").textContent = t("Failed: {result}", { result: e.message });
      return;
    }
    showJob(job);
    while (job && job.state === "running") {
      await new Promise((r) => setTimeout(r, 300));
      const res = await fetch("/api/setup/job", { credentials: "same-origin" });
      if (!res.ok) break;
      job = await res.json();
      showJob(job);
    }
    await refreshState();
  }

  function onSession(s) {
    const camera = document.querySelector("main.setup").dataset.camera === "yes";
    const admin = s.admin && camera;
    $("#setup-watch").hidden = s.admin;
    $("#setup-controls").hidden = !admin;
    $("#setup-view").hidden = !admin;
    $("#setup-legend").hidden = !admin;
    if (!admin) {
      running = false;
      $("#setup-banner").hidden = true;
      return;
    }
    if (!running) {
      running = true;
      refreshState();
      tick();
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("#cal-empty").addEventListener("click", () => runStep("empty"));
    $("#cal-colours").addEventListener("click", () => runStep("colours"));
    $("#cal-lens").addEventListener("click", () => runStep("lens"));
    $("#fit-start").addEventListener("click", startFit);
    $("#fit-save").addEventListener("click", saveFit);
    $("#fit-cancel").addEventListener("click", endFit);
    const svg = $("#overlay");
    svg.addEventListener("pointermove", (ev) => {
      if (!fit || !fit.dragging) return;
      fit.handles[fit.dragging] = framePoint(ev);
      drawFit();
    });
    const drop = () => { if (fit) fit.dragging = null; };
    svg.addEventListener("pointerup", drop);
    svg.addEventListener("pointercancel", drop);
    window.TR.onSession(onSession);
  });
})();
