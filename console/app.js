// omgdb console: plain JavaScript, no framework, no network beyond this origin.
// Every value from the server is put in the page as text (textContent), never as markup.
"use strict";
(function () {
  var csrf = "";
  var pending = [];
  var seenApprovals = {};
  var tabs = ["approvals", "sessions", "history", "stores"];

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function show(msg) {
    var m = $("message");
    m.textContent = msg;
    m.hidden = !msg;
  }
  function api(path, opts) {
    opts = opts || {};
    var headers = {};
    if (opts.method === "POST") headers["X-Omgdb-Csrf"] = csrf;
    return fetch("/console/api/" + path, { method: opts.method || "GET", headers: headers, credentials: "same-origin" })
      .then(function (r) {
        return r.json().then(function (body) {
          if (r.status === 401) { show("Signed out: open a new login link."); }
          if (!r.ok) throw new Error(body.error || ("HTTP " + r.status));
          return body;
        });
      });
  }
  // A list's state: "loading" until its first answer, then its items or its empty text; a
  // failed load says so instead of claiming the list is empty.
  function loaded(name, count, error) {
    $(name + "-loading").hidden = true;
    $(name + "-empty").hidden = count > 0 || !!error;
  }
  function failed(name, e) {
    var l = $(name + "-loading");
    if (!l.hidden) l.textContent = "Could not load: " + e.message;
    show(e.message);
  }
  // One name for a session everywhere: its label and its client's name ("a1b2c3d4 · claude-code").
  function sessionName(s) { return s.name || s.label || s.handle || s.session || ""; }
  function duration(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + " s";
    if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
    return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
  }

  // --- tabs (arrow keys move between them, as a tablist should) ---
  function select(name, focus) {
    tabs.forEach(function (t) {
      var on = t === name;
      var b = $("tab-" + t);
      b.setAttribute("aria-selected", on ? "true" : "false");
      b.tabIndex = on ? 0 : -1;
      $("page-" + t).hidden = !on;
      if (on && focus) b.focus();
    });
    if (name === "sessions") loadSessions();
    if (name === "history") loadHistory();
    if (name === "stores") loadStores();
    if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
  }
  tabs.forEach(function (t, i) {
    var b = $("tab-" + t);
    b.addEventListener("click", function () { select(t, false); });
    b.addEventListener("keydown", function (ev) {
      var d = ev.key === "ArrowRight" ? 1 : ev.key === "ArrowLeft" ? -1 : 0;
      if (ev.key === "Home") { select(tabs[0], true); ev.preventDefault(); }
      if (ev.key === "End") { select(tabs[tabs.length - 1], true); ev.preventDefault(); }
      if (d) { select(tabs[(i + d + tabs.length) % tabs.length], true); ev.preventDefault(); }
    });
  });

  // --- SQL highlighting: keywords, strings, numbers, comments ---
  var KEYWORDS = ("select from where insert into values update set delete create drop alter table index view " +
    "and or not null is in like between join left right inner outer full on as group by order having limit offset " +
    "union all distinct returning with begin commit rollback truncate grant revoke replace primary key default " +
    "case when then else end exists asc desc").split(" ");
  function highlight(sql, pre) {
    var re = /(--[^\n]*|\/\*[\s\S]*?\*\/)|('(?:[^']|'')*'?|"(?:[^"]|"")*"?)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][A-Za-z_0-9]*)|([\s\S])/g;
    var m;
    while ((m = re.exec(sql)) !== null) {
      if (m[1]) pre.appendChild(el("span", "com", m[1]));
      else if (m[2]) pre.appendChild(el("span", "str", m[2]));
      else if (m[3]) pre.appendChild(el("span", "num", m[3]));
      else if (m[4] && KEYWORDS.indexOf(m[4].toLowerCase()) >= 0) pre.appendChild(el("span", "kw", m[4]));
      else pre.appendChild(document.createTextNode(m[0]));
    }
    return pre;
  }

  // --- line diff (longest common subsequence, bounded) ---
  function diff(before, after) {
    var a = before.split("\n"), b = after.split("\n");
    var pre = el("pre", "diff");
    if (a.length * b.length > 250000) {
      a.forEach(function (l) { pre.appendChild(el("span", "del", "- " + l)); });
      b.forEach(function (l) { pre.appendChild(el("span", "add", "+ " + l)); });
      return pre;
    }
    var n = a.length, m = b.length, t = [];
    for (var i = 0; i <= n; i++) { t.push(new Array(m + 1).fill(0)); }
    for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--)
      t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
    i = 0; j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] === b[j]) { pre.appendChild(el("span", "same", "  " + a[i])); i++; j++; }
      else if (i < n && (j >= m || t[i + 1][j] >= t[i][j + 1])) { pre.appendChild(el("span", "del", "- " + a[i])); i++; }
      else { pre.appendChild(el("span", "add", "+ " + b[j])); j++; }
    }
    return pre;
  }

  // --- approvals ---
  function field(dl, name, value, cls) {
    dl.appendChild(el("dt", null, name));
    var dd = el("dd", cls || null);
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = value;
    dl.appendChild(dd);
    return dd;
  }
  function decide(a, approve, card) {
    card.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    api("approvals/" + encodeURIComponent(a.id) + "/" + (approve ? "approve" : "reject"), { method: "POST" })
      .then(function () { show(""); card.remove(); })
      .catch(function (e) { show(e.message); card.querySelectorAll("button").forEach(function (b) { b.disabled = false; }); });
  }
  function renderApprovals() {
    var box = $("approvals");
    var focusedId = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focus : null;
    box.textContent = "";
    loaded("approvals", pending.length);
    var badge = $("pending-count");
    badge.textContent = String(pending.length);
    badge.className = pending.length ? "badge on" : "badge";
    document.title = (pending.length ? "(" + pending.length + ") " : "") + "omgdb console";
    pending.forEach(function (a) {
      var card = el("article", "card");
      card.setAttribute("aria-label", "approval " + a.id);
      card.dataset.id = a.id;
      var dl = el("dl");
      field(dl, "Kind", a.kind === "edit" ? "proposed worksheet edit (proposeSqlEdit)" : "SQL execution (executeSql)");
      field(dl, "Connection", a.connection + (a.label && a.label !== a.connection ? " (" + a.label + ")" : "") + " · " + a.dialect);
      if (a.kind !== "edit") field(dl, "Access", a.write ? "writes (" + a.keyword + ")" : "read (" + a.keyword + ")", a.write ? "write" : null);
      field(dl, "Requested by", "session " + a.session + " (request " + a.request + ")", "who");
      if (a.rationale) field(dl, "Rationale", a.rationale);
      var left = field(dl, "Time left", duration(a.expiresInMs), "timeleft");
      left.dataset.deadline = String(Date.now() + a.expiresInMs);
      card.appendChild(dl);
      if (a.kind === "edit") {
        card.appendChild(el("h3", null, "Before → after"));
        card.appendChild(diff(a.before || "", a.sql));
      } else {
        card.appendChild(highlight(a.sql, el("pre", "sql")));
        if (a.limit) card.appendChild(el("p", "note", "Returns at most " + a.limit + " rows to the agent."));
      }
      var actions = el("div", "actions");
      var ok = el("button", "approve", "Approve");
      ok.dataset.focus = a.id + ":approve";
      ok.addEventListener("click", function () { decide(a, true, card); });
      var no = el("button", "reject", "Reject");
      no.dataset.focus = a.id + ":reject";
      no.addEventListener("click", function () { decide(a, false, card); });
      actions.appendChild(ok);
      actions.appendChild(no);
      card.appendChild(actions);
      box.appendChild(card);
      if (focusedId === ok.dataset.focus) ok.focus();
      if (focusedId === no.dataset.focus) no.focus();
    });
  }
  function notifyNew() {
    var fresh = pending.filter(function (a) { return !seenApprovals[a.id]; });
    pending.forEach(function (a) { seenApprovals[a.id] = true; });
    if (!fresh.length || !document.hidden || !("Notification" in window) || Notification.permission !== "granted") return;
    fresh.forEach(function (a) {
      var n = new Notification("omgdb: approval waiting", { body: a.connection + ": " + a.sql.slice(0, 120), tag: "omgdb-" + a.id });
      n.onclick = function () { window.focus(); select("approvals", true); };
    });
  }
  setInterval(function () {
    document.querySelectorAll(".timeleft").forEach(function (dd) {
      var ms = Number(dd.dataset.deadline) - Date.now();
      dd.textContent = ms > 0 ? duration(ms) : "expired";
      dd.classList.toggle("low", ms < 20000);
    });
  }, 1000);

  // --- sessions ---
  function loadSessions() {
    api("sessions").then(function (body) {
      var tb = $("sessions").tBodies[0];
      tb.textContent = "";
      loaded("sessions", body.sessions.length);
      body.sessions.forEach(function (s) {
        var tr = el("tr");
        [sessionName(s), s.token, s.scope, s.protocolVersion || "(not initialized)", duration(s.ageMs), s.inFlight,
         s.lastCall ? s.lastCall.tool + " · " + s.lastCall.outcome + " · " + s.lastCall.time : "none"].forEach(function (v) {
          tr.appendChild(el("td", null, v));
        });
        var td = el("td");
        var end = el("button", null, "End session");
        end.setAttribute("aria-label", "End session " + sessionName(s));
        end.addEventListener("click", function () {
          end.disabled = true;
          api("sessions/" + encodeURIComponent(s.handle) + "/end", { method: "POST" }).then(loadSessions)
            .catch(function (e) { show(e.message); end.disabled = false; });
        });
        td.appendChild(end);
        tr.appendChild(td);
        tb.appendChild(tr);
      });
    }).catch(function (e) { failed("sessions", e); });
  }

  // --- history ---
  function addOptions(select, values) {
    var have = {};
    Array.prototype.forEach.call(select.options, function (o) { have[o.value] = true; });
    values.forEach(function (v) { if (!have[v]) { select.appendChild(el("option", null, v)).value = v; have[v] = true; } });
  }
  function loadHistory() {
    var q = "history?store=" + encodeURIComponent($("filter-store").value) + "&connection=" + encodeURIComponent($("filter-connection").value);
    api(q).then(function (body) {
      var tb = $("history").tBodies[0];
      tb.textContent = "";
      loaded("history", body.calls.length);
      var stores = [], conns = [];
      body.calls.forEach(function (c) {
        if (c.store) stores.push(c.store);
        if (c.connection) conns.push(c.connection);
        var tr = el("tr");
        tr.appendChild(el("td", null, c.time));
        tr.appendChild(el("td", null, sessionName(c)));
        tr.appendChild(el("td", null, c.tool));
        tr.appendChild(el("td", null, c.store || c.connection || ""));
        tr.appendChild(el("td", null, c.decision ? "" : (Math.round(c.durationMs * 10) / 10) + " ms"));
        // A call's note ("client gone") qualifies its outcome; a decision's note says who decided and when.
        tr.appendChild(el("td", c.outcome === "ok" || c.outcome === "approved" ? "ok" : "bad",
                          c.outcome + (c.note && !c.decision ? " (" + c.note + ")" : "")));
        tr.appendChild(el("td", c.error ? "error" : "note", c.error || (c.decision ? c.note || "" : "")));
        if (c.decision) tr.className = "decision";
        tb.appendChild(tr);
      });
      addOptions($("filter-store"), stores);
      addOptions($("filter-connection"), conns);
    }).catch(function (e) { failed("history", e); });
  }
  $("filter-store").addEventListener("change", loadHistory);
  $("filter-connection").addEventListener("change", loadHistory);
  $("history-filter").addEventListener("submit", function (ev) { ev.preventDefault(); });

  // --- stores and connections ---
  function loadStores() {
    api("stores").then(function (body) {
      var box = $("stores");
      box.textContent = "";
      var stores = body.stores || [];
      loaded("stores", stores.length);
      stores.forEach(function (s) {
        var card = el("article", "card");
        card.appendChild(el("h3", null, s.path));
        if (s.error) card.appendChild(el("p", "bad", s.error));
        var dl = el("dl");
        field(dl, "Last verify", s.lastVerify ? s.lastVerify.outcome + " at " + s.lastVerify.time : "not run since the daemon started");
        card.appendChild(dl);
        var t = el("table");
        var head = el("tr");
        ["Collection", "Documents", "Indexes", "Search indexes"].forEach(function (h) { head.appendChild(el("th", null, h)); });
        t.appendChild(el("thead")).appendChild(head);
        var tb = el("tbody");
        (s.collections || []).forEach(function (c) {
          var tr = el("tr");
          tr.appendChild(el("td", null, c.name));
          tr.appendChild(el("td", null, c.documents));
          tr.appendChild(el("td", null, (c.indexes || []).join(", ") || "none"));
          tr.appendChild(el("td", null, (c.search || []).map(function (x) {
            return x.name + (x.lag === null ? " (no generation)" : " (lag " + x.lag + ")") +
              (x.state && x.state !== "idle" ? ", " + x.state : "");
          }).join("; ") || "none"));
          tb.appendChild(tr);
        });
        t.appendChild(tb);
        var sc = el("div", "scroll");
        sc.appendChild(t);
        card.appendChild(sc);
        box.appendChild(card);
      });
      var tbody = $("connections").tBodies[0];
      tbody.textContent = "";
      var conns = body.connections || [];
      loaded("connections", conns.length);
      conns.forEach(function (c) {
        var tr = el("tr");
        var dialect = c.kind && c.kind !== c.dialect ? c.kind + " (" + c.dialect + ")" : c.dialect;
        [c.name, c.label, dialect, c.access, c.approve, c.reachable].forEach(function (v) { tr.appendChild(el("td", null, v)); });
        tbody.appendChild(tr);
        // Seed 003: on SQL Server and ODBC connections read-only is the text check alone.
        if (c.readOnlyNotice) {
          var note = el("tr", "notice");
          var td = el("td", null, c.name + ": " + c.readOnlyNotice);
          td.colSpan = 6;
          note.appendChild(td);
          tbody.appendChild(note);
        }
      });
    }).catch(function (e) { failed("stores", e); failed("connections", e); });
  }

  // --- live updates ---
  function connect() {
    var es = new EventSource("/console/api/events");
    es.addEventListener("open", function () { $("live").textContent = "live"; $("live").className = "live on"; });
    es.addEventListener("error", function () { $("live").textContent = "reconnecting…"; $("live").className = "live"; });
    es.addEventListener("approvals", function (ev) {
      pending = JSON.parse(ev.data).pending;
      renderApprovals();
      notifyNew();
    });
    es.addEventListener("sessions", function () { if (!$("page-sessions").hidden) loadSessions(); });
    es.addEventListener("history", function () { if (!$("page-history").hidden) loadHistory(); });
  }

  $("notify").addEventListener("click", function () {
    if (!("Notification" in window)) { show("This browser has no desktop notifications."); return; }
    Notification.requestPermission().then(function (p) { $("notify").textContent = p === "granted" ? "Notifications on" : "Notifications " + p; });
  });
  $("logout").addEventListener("click", function () {
    api("logout", { method: "POST" }).then(function () { location.reload(); }).catch(function (e) { show(e.message); });
  });

  api("me").then(function (me) {
    csrf = me.csrf;
    var start = location.hash.slice(1);
    select(tabs.indexOf(start) >= 0 ? start : "approvals", false);
    connect();
  }).catch(function (e) { show(e.message); });
})();
