// The table in one screen. Every word comes from the API (the bot's catalogs); this file
// only lays out what the API sends. Texts are the bot's Telegram HTML, shown through an
// allow-list of tags: names and every other text go in as text, never as markup.
"use strict";
(function () {
  const hash = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const tg = () => (window.Telegram && window.Telegram.WebApp) || null;
  const initData = () => (tg() && tg().initData) || hash.get("tgWebAppData") || "";
  const chat = query.get("chat") || "";
  const $ = (id) => document.getElementById(id);
  const KEEP = new Set(["B", "I", "U", "S", "CODE", "EM", "STRONG"]);
  window.shbotLog = [];  // when each view arrived (the browser tests measure with it)
  window.shbotAnswers = [];  // each press's answer, as shown (toast or sheet)
  let L = {};  // the labels of the newest view

  function guessLang() {
    try { return JSON.parse(new URLSearchParams(initData()).get("user")).language_code || ""; }
    catch (e) { return navigator.language || ""; }
  }

  function rich(parent, html) {
    const doc = new DOMParser().parseFromString("<body>" + html + "</body>", "text/html");
    (function copy(src, dst) {
      for (const node of src.childNodes) {
        if (node.nodeType === 3) dst.append(node.data);
        else if (node.nodeType === 1 && KEEP.has(node.tagName)) {
          const el = document.createElement(node.tagName.toLowerCase());
          copy(node, el); dst.append(el);
        } else if (node.nodeType === 1) copy(node, dst);
      }
    })(doc.body, parent);
  }

  function lines(parent, list) {
    parent.textContent = "";
    for (const line of list || []) { const p = document.createElement("p"); rich(p, line); parent.append(p); }
  }

  function blocks(parent, list) {
    parent.textContent = "";
    for (const block of list || []) {
      const div = document.createElement("div"); div.className = "block"; lines(div, block); parent.append(div);
    }
  }

  function applyTheme(params) {
    for (const [key, value] of Object.entries(params || {})) {
      if (/^#[0-9a-fA-F]{3,8}$/.test(value)) {
        document.documentElement.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), value);
      }
    }
  }

  const MARKS = { president: "⭐", chancellor: "◆", candidate: "☆", nominee: "◇" };
  function seat(s, L) {
    const li = document.createElement("li");
    li.className = [s.you ? "you" : "", s.alive === false ? "dead" : "", s.side || ""].join(" ").trim();
    const n = document.createElement("span"); n.className = "n"; n.textContent = s.n; li.append(n);
    const name = document.createElement("span"); name.className = "name";
    name.textContent = (s.bot ? "🤖 " : "") + s.name; name.title = s.name; li.append(name);
    const marks = [MARKS[s.gov] || "", s.confirmed ? "✅" : "", s.alive === false ? "💀" : "",
      s.limited ? "🔒" : "", s.voted === true ? "🗳" : s.voted === false ? "⏳" : ""].join("");
    if (marks) { const m = document.createElement("span"); m.className = "marks"; m.textContent = marks; li.append(m); }
    if (s.role) { const r = document.createElement("span"); r.className = "role"; r.textContent = s.role; li.append(r); }
    if (s.you) { const y = document.createElement("span"); y.className = "tag"; y.textContent = L.you; li.append(y); }
    li.dataset.seat = s.n;
    return li;
  }

  // Telegram's haptics where the client offers them (never required).
  function haptic(kind, style) {
    const h = tg() && tg().HapticFeedback;
    if (!h) return;
    try { if (kind === "impact") h.impactOccurred(style); else h.notificationOccurred(style); } catch (e) { /* old client */ }
  }

  // What the viewer may press now: the chat's own buttons (labels and callback data from
  // the server), each panel with the text the chat shows with them.
  function actions(list) {
    const box = $("act"); box.textContent = "";
    for (const panel of list || []) {
      const div = document.createElement("div"); div.className = "panel " + panel.kind;
      for (const line of panel.text || []) { const p = document.createElement("p"); rich(p, line); div.append(p); }
      for (const row of panel.rows || []) {
        const r = document.createElement("div"); r.className = "row";
        for (const b of row) {
          const button = document.createElement("button"); button.type = "button";
          button.textContent = b.label; button.dataset.data = b.data;
          if (b.chosen) button.className = "chosen";
          button.addEventListener("click", () => press(b.data, button, div));
          r.append(button);
        }
        div.append(r);
      }
      box.append(div);
    }
    $("h-act").textContent = L.act;
    $("h-act").hidden = !(list || []).some((p) => p.kind !== "role");  // "My role" alone: no move to head
    $("act-box").hidden = !(list && list.length);
  }

  // A press: posted with the signed data, judged by the bot as the same button in the chat;
  // its answer shown as a toast (a pop-up in the chat: a sheet with a way back).
  const pageId = Math.random().toString(36).slice(2, 10);
  let pressed = 0, pressing = false;
  function press(data, button, panel) {
    if (pressing) return;
    pressing = true; button.classList.add("busy");
    haptic("impact", "light");
    fetch(url("api/act"), {
      method: "POST", cache: "no-store", body: JSON.stringify({ data, id: pageId + (++pressed).toString(36) }),
      headers: { Authorization: "tma " + initData(), "Content-Type": "application/json" },
    })
      .then((r) => r.json())
      .then((a) => {
        if (a.error) a = { ok: false, text: a.error, alert: false };  // refused before judging (expired...)
        if (a.ok && !panel.classList.contains("role")) {
          for (const b of panel.querySelectorAll("button")) b.disabled = true;  // done: the next view follows
        }
        answered(a);
      })
      .catch(() => answered({ ok: false, text: L.failed }))
      .finally(() => { pressing = false; button.classList.remove("busy"); });
  }

  function answered(a) {
    haptic("notify", a.ok ? "success" : "error");
    window.shbotAnswers.push(a);
    if (a.text && a.alert) sheet(a.text); else if (a.text) toast(a.text);
  }

  let toastTimer = 0;
  function toast(text) {
    const el = $("toast"); el.textContent = text; el.hidden = false;
    clearTimeout(toastTimer); toastTimer = setTimeout(() => { el.hidden = true; }, 3000);
  }

  // The sheet is the page's one sub-view: Telegram's BackButton (or its own button) closes it.
  function sheet(text) {
    $("sheet-text").textContent = text; $("sheet-back").textContent = L.back; $("sheet").hidden = false;
    const app = tg();
    if (app && app.BackButton) { app.BackButton.onClick(closeSheet); app.BackButton.show(); }
  }

  function closeSheet() {
    $("sheet").hidden = true;
    const app = tg();
    if (app && app.BackButton) { app.BackButton.offClick(closeSheet); app.BackButton.hide(); }
  }

  function show(v) {
    L = v.labels;
    document.title = L.title; $("title").textContent = L.title;
    $("h-seats").textContent = L.seats; $("h-now").textContent = L.now; $("h-record").textContent = L.record;
    $("h-secret").textContent = L.secret; $("secret-note").textContent = L.secret_note;
    $("legend").textContent = v.status === "lobby" ? "" : L.legend;
    const note = v.status === "lobby" ? L.lobby : v.status === "cancelled" ? L.cancelled
      : v.you === null && v.status !== "over" ? L.watching : "";
    $("note").textContent = note; $("note").hidden = !note;
    $("board").innerHTML = v.board || "";  // drawn by the server from public facts only
    $("board-box").hidden = !v.board;
    const seats = $("seats"); seats.textContent = "";
    for (const s of v.seats || []) seats.append(seat(s, L));
    actions(v.actions);
    lines($("now"), v.now); $("now-box").hidden = !(v.now && v.now.length);
    lines($("end"), v.end); $("end-box").hidden = !v.end;
    blocks($("secret"), v.secret); $("secret-box").hidden = !v.secret;
    lines($("claims"), v.claims); $("claims-box").hidden = !(v.claims && v.claims.length);
    if (v.record && v.record.length) blocks($("record"), v.record);
    else lines($("record"), [L.empty]);
    $("record-box").hidden = !v.record;  // none before the game starts: no empty heading
    $("status").title = L.live;
    $("error").hidden = true; $("main").hidden = false;
    document.body.dataset.status = v.status;
    document.body.dataset.phase = v.phase || "";
    document.body.dataset.round = v.round || "";
    window.shbotLog.push({ at: Date.now(), status: v.status, phase: v.phase, round: v.round });
  }

  function fail(body) {
    $("error").textContent = body.error; $("error").hidden = false; $("main").hidden = true;
    document.body.dataset.status = "error";
  }

  function url(path) {
    const q = new URLSearchParams({ lang: guessLang() });
    if (chat) q.set("chat", chat);
    return path + "?" + q.toString();
  }

  // Polite retries: a refusal's Retry-After, else a wait that doubles from one second to
  // half a minute (a quarter more or less, so that a crowd does not come back at once);
  // back to one second once a stream has delivered a view.
  let backoff = 0;
  function delay(r) {
    backoff = Math.min(30000, backoff ? backoff * 2 : 1000);
    const after = 1000 * (Number(r && r.headers.get("Retry-After")) || 0);
    return Math.max(after, backoff) * (0.75 + Math.random() * 0.5);
  }

  // The live view: server-sent events read through fetch, so that the signed data goes in
  // a header (an EventSource could only put it in the URL, where proxies log it).
  let stream = 0, reading = null;
  function listen() {
    const mine = ++stream;
    reading = new AbortController();
    const again = (r) => { if (mine === stream) { offline(); setTimeout(listen, delay(r)); } };
    fetch(url("api/events"), { headers: { Authorization: "tma " + initData() }, cache: "no-store", signal: reading.signal })
      .then((r) => {
        if (r.status === 429) { again(r); return; }  // too many streams: later
        if (r.status >= 400 && r.status < 500) { stream++; setTimeout(start, delay(r)); return; }  // says why
        if (!r.ok || !r.body) { again(r); return; }
        $("status").className = "status";
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        const pump = () => reader.read().then(({ value, done }) => {
          if (done) { again(); return; }
          buffer += value;
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const event = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
            const data = event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
            if (data && mine === stream) { backoff = 0; show(JSON.parse(data)); }
          }
          return pump();
        });
        return pump();
      })
      .catch(() => again());
  }

  function offline() { $("status").className = "status off"; }

  function start() {
    fetch(url("api/state"), { headers: { Authorization: "tma " + initData() } })
      .then((r) => r.json().then((body) => ({ r, body })))
      .then(({ r, body }) => {
        if (!r.ok) {
          fail(body);
          if (body.reason === "expired" || body.reason === "forbidden") return;
          setTimeout(start, r.status === 429 ? delay(r) : Math.max(5000, delay(r)));
          return;
        }
        show(body); listen();
      })
      .catch(() => { offline(); setTimeout(start, delay()); });
  }

  // A page put aside (the back-forward cache) gives its stream back, and opens it again
  // when shown: a browser keeps only a few connections to one server.
  window.addEventListener("pagehide", () => { stream++; if (reading) reading.abort(); });
  window.addEventListener("pageshow", (e) => { if (e.persisted) start(); });
  $("sheet-back").addEventListener("click", closeSheet);
  $("sheet").addEventListener("click", (e) => { if (e.target === $("sheet")) closeSheet(); });
  applyTheme((() => { try { return JSON.parse(hash.get("tgWebAppThemeParams") || "{}"); } catch (e) { return {}; } })());
  window.addEventListener("load", () => {
    const app = tg();
    if (app) {
      applyTheme(app.themeParams);
      app.onEvent("themeChanged", () => applyTheme(app.themeParams));
      app.ready(); app.expand();
    }
  });
  start();
})();
