/* The camera set-up page: the camera's picture, refreshed a few times a second while the page
   is open and visible, with the lock drawn over it as SVG (from /api/setup/overlay), and the
   calibration steps. Everything here needs the admin PIN; a watcher sees no controls. */
"use strict";
(function () {
  const { $, post, session } = window.TR;
  const SVG = "http://www.w3.org/2000/svg";
  const REFRESH_MS = 250; // a few pictures a second; none while the page is hidden
  const VERDICT = {
    read: "read", occupied: "a piece, not named", empty: "empty", unreadable: "unreadable", unknown: "not read yet",
  };
  let running = false;
  let shown = "#snap-a";
  let seq = 0;
  let setup = null;

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
    const what = s.verdict === "read" ? `read: ${s.tokens.join(" + ")}` : VERDICT[s.verdict] || s.verdict;
    return `${s.id}: ${what}` + (s.why ? ` — ${s.why}` : "");
  }

  function drawOverlay(ov) {
    const svg = $("#overlay");
    svg.replaceChildren();
    if (!ov.width) return;
    svg.setAttribute("viewBox", `0 0 ${ov.width} ${ov.height}`);
    if (ov.outline.length) {
      el("polygon", { class: "o-outline", points: ov.outline.map((p) => p.join(",")).join(" ") }, svg);
    }
    const r = Math.max(4, ov.width / 160);
    for (const s of ov.spaces) {
      const c = el("circle", { class: `o-space v-${s.verdict}`, cx: s.x, cy: s.y, r, "data-space": s.id,
                               "data-verdict": s.verdict }, svg);
      el("title", {}, c).textContent = describe(s);
      c.addEventListener("click", () => { $("#space-info").textContent = describe(s); });
    }
  }

  function lockText(ov) {
    const lock = {
      locked: "Board locked: the sheet outline and every space are drawn on the picture.",
      searching: "Looking for the four corner markers…",
      occluded: "Corner markers covered: reading is frozen until they are in view.",
      "no frame": "No picture from the camera yet.",
    }[ov.lock] || ov.lock;
    const reading = ov.reading === "setup" ? " Set-up mode: nothing is read until the empty board is learned."
      : ov.reading_age === null ? "" : ` Verdicts read ${ov.reading_age.toFixed(1)} s ago.`;
    return lock + reading;
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

  function showState(st) {
    setup = st;
    $("#cal-file").textContent = `${st.title}: the calibration is saved to ${st.calibration}` +
      (st.calibrated ? "." : " (not made yet).");
    $("#lens-file").textContent = st.lens ? `in use: ${st.lens}` :
      "none (an ideal pinhole). Measure a wide-angle lens with `tableref calibrate-lens`, then set [source.camera] lens.";
    $("#colour-step").hidden = !st.colour_game;
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
      ? "Set-up: the empty board is learned; now lay out the pieces and learn their colours. The referee waits."
      : "Set-up: the camera is not calibrated yet. Clear the board and learn the empty board. The referee waits.";
    if (st.job) showJob(st.job);
  }

  function showJob(job) {
    $("#job").hidden = job.state !== "running";
    $("#job-bar").value = job.fraction;
    $("#job-text").textContent = job.progress;
    const res = $("#job-result");
    res.dataset.state = job.state;
    res.textContent = job.state === "running" ? "" : (job.state === "done" ? "Done: " : "Failed: ") + job.result;
    for (const b of ["#cal-empty", "#cal-colours"]) $(b).disabled = job.state === "running";
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
      $("#job-result").textContent = "Failed: " + e.message;
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
    window.TR.onSession(onSession);
  });
})();
