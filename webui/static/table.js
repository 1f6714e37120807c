// The table page: live updates over Server-Sent Events, no reloads.
// The server sends every event ready to show (board drawing, notation, picture URLs), so this
// script only places things on the page.
"use strict";

const csrfToken = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);

const VERDICT_TEXT = {
  start: "Opening position",
  move: "",
  undo: "Taken back",
  override: "Position corrected",
  accept: "Table accepted as it is",
  restored: "Table put back",
  over: "Game over",
  illegal: "Illegal move",
};

// "Kofi: North c": the mover's name, where the entry has it, before the move's notation.
function played(entry) {
  return entry.by ? `${entry.by}: ${entry.notation}` : entry.notation;
}

function logText(entry) {
  if (entry.notation) return entry.number ? `${entry.number}. ${played(entry)}` : entry.notation;
  return VERDICT_TEXT[entry.type] || entry.type;
}

function addLogEntry(entry) {
  const item = document.createElement("li");
  // A move taken in doubt ("not sure: ... please check the table") asks the players to look.
  const unsure = entry.legal !== false && (entry.reason || "").startsWith("not sure");
  const kind = entry.legal === false ? "illegal" : unsure ? "unsure" : entry.type;
  item.className = "entry " + kind;
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = logText(entry);
  const verdict = document.createElement("span");
  verdict.className = "verdict";
  // Only judged moves get a verdict; the other entries say what happened in their text.
  verdict.textContent = entry.legal === false ? "ILLEGAL" : unsure ? "check" : entry.type === "move" ? "legal" : "";
  item.append(text, verdict);
  if (entry.reason) {
    const reason = document.createElement("span");
    reason.className = "reason";
    reason.textContent = entry.reason;
    item.append(reason);
  }
  $("log").prepend(item);
}

function showPosition(data) {
  if (data.board_svg) $("board").innerHTML = data.board_svg;
  if (data.turn !== undefined && data.turn !== "") $("turn").textContent = data.turn;
  if (data.score !== undefined) $("score").textContent = data.score;
  if (data.number) $("last-move").textContent = `Last move: ${data.number}. ${played(data)}`;
}

// The result: the banner, the heading, and the words under the final position's drawing.
function showOver(data) {
  const text = data.over_text || "";
  $("over").textContent = text;
  $("over").classList.toggle("visible", Boolean(text));
  $("final").textContent = data.final_text || "";
  if (text) $("turn").textContent = "Game over";
}

function showAlert(data) {
  $("alert-reason").textContent = data.reason || "No legal move explains the change on the table.";
  $("alert-before").src = data.snapshot_before_url || "";
  $("alert-after").src = data.snapshot_after_url || "";
  $("alert").classList.add("visible");
  $("alert").scrollIntoView({ behavior: "smooth", block: "start" });
}

function hideAlert() {
  $("alert").classList.remove("visible");
}

function setStatus(status) {
  const chip = $("status");
  chip.className = "chip " + status;
  chip.textContent = status.replace("_", " ");
}

// How the table's reporting to the director stands, in the words of the chip beside "live".
const DIRECTOR_WORDS = {
  delivered: "director: up to date",
  unreachable: "director: offline, moves kept",
  refused: "director: refused",
  failed: "director: record store failing",
};

function setDirector(data) {
  const chip = $("director");
  if (!data || !data.status) return;
  chip.hidden = false;
  chip.className = "chip " + (data.status === "delivered" ? "online" : "offline");
  chip.textContent = DIRECTOR_WORDS[data.status] || "director: " + data.status;
  chip.title = data.message || "";
}

const handlers = {
  snapshot(data) {
    $("log").replaceChildren();
    data.log.forEach(addLogEntry);
    $("board").innerHTML = data.board_svg || "";
    $("turn").textContent = data.turn || "Waiting for the opening position";
    $("players").textContent = data.players || "";
    $("score").textContent = data.score || "";
    $("match").textContent = data.match_text || "";
    setDirector(data.director);
    $("last-move").textContent = data.last_move ? `Last move: ${data.last_move.number}. ${played(data.last_move)}` : "";
    showOver(data);
    if (data.status) setStatus(data.status);
    if (data.alert) showAlert(data.alert); else hideAlert();
  },
  transition(data) {
    addLogEntry({ ...data, type: data.verdict === "start" ? "start" : data.verdict === "undo" ? "undo" : "move" });
    showPosition(data);
    hideAlert();
  },
  illegal(data) {
    addLogEntry({ ...data, type: "illegal" });
    showAlert(data);
  },
  restored(data) { addLogEntry({ ...data, type: "restored" }); showPosition(data); hideAlert(); },
  override(data) { addLogEntry({ ...data, type: "override" }); showPosition(data); hideAlert(); },
  accept(data) { addLogEntry({ ...data, type: "accept" }); showPosition(data); hideAlert(); },
  over(data) {
    showOver(data);
    if (data.match_text) $("match").textContent = data.match_text;
  },
  match(data) { if (data.match_text) $("match").textContent = data.match_text; },
  // Another game at the table (the next one, or a match seated here): show it as a new page would.
  async game() {
    handlers.snapshot(await (await fetch("/api/table")).json());
  },
  status(data) {
    setStatus(data.status);
    if (data.turn) $("turn").textContent = data.turn;  // the camera stopped: the game was left unfinished
  },
  camera(data) { setStatus(data.status === "lost" ? "camera_lost" : "moving"); },
  director(data) { setDirector(data); },
  error(data) { $("alert-reason").textContent = data.message; $("alert").classList.add("visible"); },
};

function connect() {
  const source = new EventSource("/events");
  for (const [name, handle] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => handle(JSON.parse(event.data)));
  }
  source.onopen = () => { $("live").className = "chip online"; $("live").textContent = "live"; };
  source.onerror = () => { $("live").className = "chip offline"; $("live").textContent = "reconnecting…"; };
}

$("accept").addEventListener("click", async () => {
  const headers = { "X-CSRF-Token": csrfToken };
  const response = await fetch("/api/accept", { method: "POST", headers });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    alert(body.error || `The table could not be accepted (${response.status}).`);
  }
});

connect();
