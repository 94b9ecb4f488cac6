/* Shared by every page: the session (admin or watching), the CSRF token, the PIN dialog,
   JSON requests and the toast. */
"use strict";
(function () {
  const listeners = [];
  const session = { admin: false, pin_set: false, can_set_pin: false, csrf: "" };

  function $(sel) { return document.querySelector(sel); }

  /* The page's own strings in the reader's language (web/i18n.py fills #tr-messages). */
  let messages = null;
  function t(s, values) {
    if (messages === null) {
      try { messages = JSON.parse(($("#tr-messages") || {}).textContent || "{}"); } catch (e) { messages = {}; }
    }
    const out = messages[s] || s;
    return values ? out.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m)) : out;
  }

  function toast(msg) {
    const t = $("#toast");
    if (!t) return;
    t.textContent = msg;
    t.classList.add("show");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => t.classList.remove("show"), 3500);
  }

  async function refreshSession() {
    const res = await fetch("/api/session", { credentials: "same-origin" });
    Object.assign(session, await res.json());
    const btn = $("#admin-btn");
    if (btn) {
      btn.textContent = t(session.admin ? "Log out" : session.pin_set ? "Admin PIN" : "Choose PIN");
      btn.title = t(session.admin ? "you control the game" : "watching: enter the PIN to control the game");
    }
    document.body.classList.toggle("is-admin", session.admin);
    listeners.forEach((fn) => fn(session));
    return session;
  }

  /* POST JSON (or FormData) with the CSRF token; resolves to the parsed body, or throws
     an Error carrying the server's message. */
  async function post(url, body) {
    const isForm = body instanceof FormData;
    const res = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: Object.assign({ "X-CSRF-Token": session.csrf }, isForm ? {} : { "Content-Type": "application/json" }),
      body: isForm ? body : JSON.stringify(body || {}),
    });
    let data = {};
    try { data = await res.json(); } catch (e) { data = {}; }
    if (!res.ok) {
      if (res.status === 403 && /PIN/.test(data.error || "")) refreshSession();
      throw new Error(data.error || `${res.status} ${res.statusText}`);
    }
    return data;
  }

  /* Run a control, saying what went wrong if it fails. */
  async function act(url, body) {
    try {
      return await post(url, body);
    } catch (e) {
      toast(e.message);
      return null;
    }
  }

  function openPinDialog() {
    const dlg = $("#pin-dialog");
    const first = !session.pin_set;
    $("#pin-title").textContent = t(first ? "Choose an admin PIN" : "Enter the admin PIN");
    $("#pin-help").textContent = t(first
      ? "4 to 12 digits. Anyone on the network can watch; the PIN is needed to confirm moves, undo and start games."
      : "The PIN lets this phone or computer control the game.");
    $("#pin-error").textContent = "";
    $("#pin-input").value = "";
    dlg.showModal();
    $("#pin-input").focus();
  }

  async function submitPin(ev) {
    ev.preventDefault();
    const pin = $("#pin-input").value.trim();
    try {
      await post(session.pin_set ? "/api/login" : "/api/pin", { pin });
      $("#pin-dialog").close();
      await refreshSession();
      toast(t("You can control the game now."));
    } catch (e) {
      $("#pin-error").textContent = e.message;
    }
  }

  async function adminButton() {
    if (session.admin) {
      await act("/api/logout");
      await refreshSession();
      toast(t("Logged out: watching only."));
    } else if (!session.pin_set && !session.can_set_pin) {
      toast(t("No admin PIN yet: choose it in a browser on the Pi itself."));
    } else {
      openPinDialog();
    }
  }

  document.addEventListener("DOMContentLoaded", async () => {
    const btn = $("#admin-btn");
    if (btn) btn.addEventListener("click", adminButton);
    const form = $("#pin-form");
    if (form) form.addEventListener("submit", submitPin);
    const cancel = $("#pin-cancel");
    if (cancel) cancel.addEventListener("click", () => $("#pin-dialog").close());
    const lang = $("#lang-choice");
    if (lang) lang.addEventListener("change", () => {
      document.cookie = `tableref_lang=${encodeURIComponent(lang.value)}; path=/; max-age=31536000; samesite=strict`;
      location.reload();
    });
    await refreshSession();
    if (!session.pin_set && session.can_set_pin) openPinDialog();
    voiceButton();
  });

  /* The admin's mute toggle for the referee's voice (hidden when the voice is off). */
  async function voiceButton() {
    const btn = $("#voice-btn");
    if (!btn) return;
    let voice = null;
    try { voice = (await (await fetch("/api/voice", { credentials: "same-origin" })).json()).voice; } catch (e) { return; }
    if (!voice) return;
    const show = () => {
      btn.hidden = !session.admin;
      btn.textContent = t(voice.muted ? "Unmute the voice" : "Mute the voice");
    };
    btn.addEventListener("click", async () => {
      const r = await act("/api/voice/mute", { muted: !voice.muted });
      if (r && r.voice) { voice = r.voice; toast(t(voice.muted ? "Voice muted" : "Voice on")); }
      show();
    });
    listeners.push(show);
    show();
  }

  // A turn's steps as a list (the computer's move, a hint, a lesson's step): each step's move in
  // words, ticked once done, with where hands lift and put down (none: declared, not shown).
  function turnSteps(steps, done, rt) {
    const ol = document.createElement("ol");
    ol.className = "turn-steps";
    steps.forEach((step, i) => {
      const li = document.createElement("li");
      li.className = i < (done || 0) ? "done" : "todo";
      li.dataset.move = step.move;
      li.dataset.lift = step.lift.join(" ");
      li.dataset.place = step.place.join(" ");
      li.textContent = `${step.move} — ${rt(step.description)}`;
      if (step.lift.length || step.place.length) {
        const where = document.createElement("span");
        where.className = "where";
        where.textContent = t("lift from {lift} · put down on {place}",
          { lift: step.lift.join(", ") || "—", place: step.place.join(", ") || "—" });
        li.append(where);
      }
      ol.append(li);
    });
    return ol;
  }

  window.TR = {
    $, t, toast, post, act, session, refreshSession, openPinDialog, turnSteps,
    onSession: (fn) => { listeners.push(fn); fn(session); },
    title: (s) => String(s || "").replace(/^./, (c) => c.toUpperCase()),
  };
})();
