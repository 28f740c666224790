// The Playground page (served by the gateway as a static asset; bundled by scripts/build-playground.mjs). It speaks
// only the gateway's routes (protocol §8): GET /languages, POST /execute/<language>, and the sandbox routes
// /languages/<language>/sandboxes/<id>/{execute,contexts,files} and GET/DELETE /languages/<language>/sandboxes/<id>.
// What it renders is bounded, so a huge output or a deep result never locks the page up; a runaway program ends on the
// server when its fuel runs out. Its rules are thin: the runtime validates every request, and its error is what the
// page shows; the only pre-check (env vars) is for a quicker message.
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { Compartment, EditorState, Prec } from "@codemirror/state";
// Each language's sample program, editor mode, examples and deploy files, from its manifest (engines/<id>/engine.json:
// `sample`, `editor`; engines/<id>/examples.json) and the CLI's generator: scripts/build-playground.mjs generates this
// module (scripts/languages.mjs, pageModule).
import { LANGUAGES } from "sandbox:languages";

// Rendering bounds (the server bounds output too: 200 log entries, 32 KiB of logs, 64 KiB of result).
const MAX_LINES = 500;
const MAX_CHARS = 100_000;
const MAX_CHILDREN = 200;
const REQUEST_TIMEOUT_MS = 120_000;
const MAX_TRANSCRIPT = 200; // REPL entries kept on screen
const MAX_HISTORY = 100; // REPL lines kept per language
const STORE = "sw-playground:"; // localStorage prefix: draft:<language>, history:<language>, env

const $ = (id) => document.getElementById(id);
const ui = {
  language: $("language"), mode: $("mode"), example: $("example"), run: $("run"), share: $("share"),
  contextBar: $("context-bar"), sandboxId: $("sandbox-id"), context: $("context"),
  newContext: $("new-context"), deleteContext: $("delete-context"), newSession: $("new-session"), reset: $("reset-session"),
  session: $("session"), strip: $("session-strip"), refreshSession: $("refresh-session"),
  editor: $("editor"), repl: $("repl"), transcript: $("transcript"), replInput: $("repl-input"), clearLog: $("clear-log"),
  env: $("env"), envStatus: $("env-status"), raw: $("raw"), copyRaw: $("copy-raw"),
  deploy: $("deploy"), deployCommand: $("deploy-command"), copyDeploy: $("copy-deploy"),
  status: $("status"), error: $("error"), result: $("result"),
  stdoutBox: $("stdout-box"), stdout: $("stdout"), stderrBox: $("stderr-box"), stderr: $("stderr"),
  files: $("files"), upload: $("upload"), refreshFiles: $("refresh-files"), filesStatus: $("files-status"),
  fileList: $("file-list").tBodies[0],
};

let languages = [];
let running = false;

// localStorage may be unavailable (a private window, a full quota): the page then keeps nothing across reloads.
const store = {
  get(key) {
    try {
      return localStorage.getItem(STORE + key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(STORE + key, value);
    } catch {}
  },
};

const lang = () => ui.language.value;
const mode = () => ui.mode.value;
const inSandbox = () => mode() !== "stateless";

// --- shareable state: #language=…&mode=…&sandbox=…&code=… -------------------------------------------------------
function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  return {
    language: params.get("language"),
    mode: params.get("mode"),
    sandbox: params.get("sandbox"),
    code: params.get("code"),
  };
}

function writeHash() {
  const params = new URLSearchParams();
  params.set("language", lang());
  params.set("mode", mode());
  if (inSandbox()) params.set("sandbox", ui.sandboxId.value);
  params.set("code", editor.state.doc.toString());
  history.replaceState(null, "", `#${params}`);
}

let hashTimer = 0;
function writeHashSoon() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(writeHash, 300);
}

// --- the editor, and a draft per language ------------------------------------------------------------------------
const highlight = new Compartment();
const editor = new EditorView({
  parent: ui.editor,
  state: EditorState.create({
    doc: "",
    extensions: [
      Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (run(), true) }])),
      basicSetup,
      highlight.of([]),
      EditorView.contentAttributes.of({ "aria-label": "Code editor" }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        writeHashSoon();
        if (ui.language.dataset.current) store.set(`draft:${ui.language.dataset.current}`, update.state.doc.toString());
      }),
    ],
  }),
});

function setCode(code) {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: code } });
}

function setLanguage(id, { keepCode = false } = {}) {
  ui.language.value = id;
  ui.language.dataset.current = id;
  const info = LANGUAGES[id];
  editor.dispatch({ effects: highlight.reconfigure(info ? info.highlight() : []) });
  // Each language keeps its own draft (localStorage); a language never edited starts with its sample.
  if (!keepCode) setCode(store.get(`draft:${id}`) ?? info?.sample ?? "");
  else store.set(`draft:${id}`, editor.state.doc.toString());
  const entry = languages.find((l) => l.id === id);
  const stateless = entry ? !entry.contexts : false;
  ui.mode.querySelector('option[value="context"]').textContent = stateless ? "Code context (stateless only)" : "Code context";
  ui.mode.querySelector('option[value="repl"]').textContent = stateless ? "REPL (stateless only)" : "REPL";
  ui.example.replaceChildren(new Option("Choose an example…", ""), ...(info?.examples ?? []).map((e, i) => new Option(e.title, String(i))));
  showDeploy(id);
  loadHistory(id);
  // A context belongs to one language: drop the previous language's choice now, so a run before the list comes back
  // cannot name another language's context (the Sandbox would run the code there: a contextId wins over the binding).
  ui.context.replaceChildren(new Option("default for this language", ""));
  if (inSandbox() && document.body.dataset.ready) refreshSandbox();
  writeHashSoon();
}

// --- requests ----------------------------------------------------------------------------------------------------
async function call(method, path, body) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
  try {
    const response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
    });
    const text = await response.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, ok: response.ok, json, text };
  } finally {
    clearTimeout(timer);
  }
}

const sandboxPath = (sub = "") =>
  `/languages/${encodeURIComponent(lang())}/sandboxes/${encodeURIComponent(ui.sandboxId.value)}${sub}`;

// --- rendering ---------------------------------------------------------------------------------------------------
function clip(text, max = MAX_CHARS) {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

function linesText(lines) {
  const shown = lines.slice(0, MAX_LINES).join("\n");
  return clip(shown) + (lines.length > MAX_LINES ? `\n… (${lines.length - MAX_LINES} more lines)` : "");
}

function showLines(box, pre, lines) {
  box.hidden = !lines || lines.length === 0;
  if (!box.hidden) pre.textContent = linesText(lines);
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function scalar(value) {
  if (typeof value === "string") return el("span", "str", JSON.stringify(value.length > 2000 ? `${value.slice(0, 2000)}…` : value));
  if (typeof value === "number") return el("span", "num", String(value));
  return el("span", "lit", String(value));
}

// A collapsible JSON tree. Children are built when a node is first opened, and at most MAX_CHILDREN of them.
function tree(value, key, open) {
  const label = (node) => {
    if (key !== undefined) node.append(el("span", "key", `${key}: `));
    return node;
  };
  if (value === null || typeof value !== "object") {
    const leaf = label(el("div", "leaf"));
    leaf.append(scalar(value));
    return leaf;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const details = el("details");
  const summary = label(el("summary"));
  summary.append(el("span", "note", Array.isArray(value) ? `Array(${entries.length})` : `{${entries.length} keys}`));
  details.append(summary);
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    for (const [k, v] of entries.slice(0, MAX_CHILDREN)) details.append(tree(v, k, false));
    if (entries.length > MAX_CHILDREN) details.append(el("div", "note", `… ${entries.length - MAX_CHILDREN} more`));
  };
  details.addEventListener("toggle", () => details.open && build());
  if (open) {
    details.open = true;
    build();
  }
  return details;
}

function clearOutput() {
  ui.error.hidden = true;
  ui.error.replaceChildren();
  ui.result.hidden = true;
  ui.result.replaceChildren();
  showLines(ui.stdoutBox, ui.stdout, []);
  showLines(ui.stderrBox, ui.stderr, []);
}

function setStatus(text, state) {
  ui.status.textContent = text;
  if (state) ui.status.dataset.state = state;
}

function showError(name, message, traceback, extra) {
  ui.error.hidden = false;
  ui.error.replaceChildren();
  const head = el("div");
  head.append(el("span", "name", name), document.createTextNode(`: ${clip(String(message ?? ""))}`));
  ui.error.append(head);
  const lines = Array.isArray(traceback) ? traceback : [];
  if (lines.length) ui.error.append(el("pre", "", clip(lines.slice(0, MAX_LINES).join("\n"))));
  if (extra) ui.error.append(el("pre", "", clip(extra)));
}

// An ErrorResponse (protocol §3.6) or any other non-200 answer: [name, message, context text].
function failureOf(answer) {
  const body = answer.json;
  if (body && typeof body === "object" && typeof body.message === "string") {
    const context = body.context && Object.keys(body.context).length ? JSON.stringify(body.context, null, 2) : "";
    return [`${answer.status} ${body.code ?? "Error"}`, body.message, context];
  }
  return [`HTTP ${answer.status}`, answer.text.slice(0, 2000) || "(empty response)", ""];
}

function showFailure(answer) {
  const [name, message, context] = failureOf(answer);
  showError(name, message, [], context);
}

function showResult(r) {
  const parts = [r.language, r.engine, `${Number(r.durationMs).toFixed(1)} ms`];
  if (r.usage) parts.push(`fuel ${r.usage.fuelConsumed.toLocaleString("en-US")} / ${r.usage.fuelLimit.toLocaleString("en-US")}`);
  if (r.usage?.memoryBytes) parts.push(`${(r.usage.memoryBytes / 1048576).toFixed(1)} MiB memory`);
  if (r.context) parts.push(`context ${r.context.id.slice(0, 8)} · run #${r.executionCount ?? r.context.executions}`);
  ui.status.replaceChildren();
  parts.forEach((p, i) => {
    const span = el("span");
    if (i === 0) span.append(el("b", "", r.language));
    else span.textContent = ` · ${p}`;
    ui.status.append(span);
  });
  ui.status.dataset.state = r.error ? "error" : "ok";
  const entry = r.results?.[0];
  if (entry) {
    ui.result.hidden = false;
    ui.result.append(el("h2", "", "result"));
    if ("json" in entry) {
      const box = el("div", "tree");
      box.append(tree(entry.json, undefined, true));
      ui.result.append(box);
    }
    else ui.result.append(el("pre", "text-result", clip(String(entry.text))));
  }
  showLines(ui.stdoutBox, ui.stdout, r.logs?.stdout);
  showLines(ui.stderrBox, ui.stderr, r.logs?.stderr);
  if (r.error) showError(r.error.name, r.error.message, r.error.traceback);
}

// The raw view shows at most MAX_CHARS of the last response; Copy copies all of it.
let lastRaw = "";
function setRaw(text) {
  lastRaw = text;
  let pretty = text;
  try {
    if (text.length <= 1_000_000) pretty = JSON.stringify(JSON.parse(text), null, 2);
  } catch {}
  ui.raw.textContent = clip(pretty);
}

async function copy(text, done) {
  try {
    await navigator.clipboard.writeText(text);
    setStatus(done);
  } catch {
    setStatus("Copying was refused by the browser: select the text instead.");
  }
}

// --- environment variables ---------------------------------------------------------------------------------------
// The runtime's rules (protocol §7.3; cpp/server isValidEnvKey, cpp/sandbox/env.cpp), checked here only for a quick
// message before sending, in the runtime's words: the runtime checks again, and its answer is the one that counts.
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
function readEnv() {
  const text = ui.env.value.trim();
  if (text === "" || text === "{}") return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON (${error.message})` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { error: "envVars must be an object" };
  for (const [key, v] of Object.entries(value)) {
    if (!ENV_KEY.test(key)) return { error: `Invalid envVars key: ${key}` };
    if (typeof v !== "string") return { error: "envVars values must be strings" };
  }
  return Object.keys(value).length ? { envVars: value } : {};
}

function checkEnv() {
  const { envVars, error } = readEnv();
  ui.env.setAttribute("aria-invalid", error ? "true" : "false");
  ui.envStatus.dataset.state = error ? "error" : "ok";
  ui.envStatus.textContent = error
    ? `Not sent: ${error}`
    : envVars ? `Sent as envVars: ${Object.keys(envVars).length} variable(s).` : "Sent as envVars: an object of names (letters, digits, _) to strings.";
  store.set("env", ui.env.value);
  return { envVars, error };
}

// --- running -----------------------------------------------------------------------------------------------------
// One execute of `code` in the current mode, with the env pane's variables. Renders the answer in the output pane and
// returns it ({ answer } or { error } when it was not sent).
async function execute(code) {
  const { envVars, error } = checkEnv();
  clearOutput();
  if (error) {
    setStatus("Not sent: fix the environment variables.", "error");
    showError("Environment variables", error);
    return { error };
  }
  setStatus("Running…", "running");
  const body = { code };
  if (envVars) body.envVars = envVars;
  let answer;
  try {
    if (inSandbox()) {
      if (ui.context.value) body.contextId = ui.context.value;
      answer = await call("POST", sandboxPath("/execute"), body);
    } else {
      answer = await call("POST", `/execute/${encodeURIComponent(lang())}`, body);
    }
  } catch (error) {
    setStatus("Failed.", "error");
    showError(error.name === "AbortError" ? "Timeout" : "NetworkError", error.message);
    return { error: error.message };
  }
  setRaw(answer.text);
  if (answer.ok && answer.json) showResult(answer.json);
  else {
    setStatus("Failed.", "error");
    showFailure(answer);
  }
  if (inSandbox()) {
    if (answer.json?.context) updateStrip({ ...answer.json.context, contextId: answer.json.context.id });
    await refreshSandbox(answer.json?.context?.id);
    await refreshFiles();
  }
  return { answer };
}

function busy(on) {
  running = on;
  ui.run.disabled = on;
  ui.run.textContent = on ? "Running…" : "Run";
}

async function run() {
  if (running) return;
  if (mode() === "repl") return replRun();
  busy(true);
  writeHash();
  try {
    await execute(editor.state.doc.toString());
  } finally {
    busy(false);
  }
}

// --- the REPL: one line (or a few, with Shift+Enter) at a time in the context; the transcript above ----------------
let replHistory = [];
let historyIndex = 0;
let historyDraft = "";

function loadHistory(id) {
  try {
    replHistory = JSON.parse(store.get(`history:${id}`) ?? "[]").filter((l) => typeof l === "string");
  } catch {
    replHistory = [];
  }
  historyIndex = replHistory.length;
}

function transcriptEntry(code) {
  const entry = el("div", "entry");
  entry.append(el("pre", "in", clip(code, 2000)));
  ui.transcript.append(entry);
  while (ui.transcript.childElementCount > MAX_TRANSCRIPT) ui.transcript.firstElementChild.remove();
  return entry;
}

function transcriptOutcome(entry, outcome) {
  const { answer, error } = outcome;
  if (error) entry.append(el("pre", "err", `Not sent: ${error}`));
  else if (!answer.ok || !answer.json) entry.append(el("pre", "err", failureOf(answer).slice(0, 2).join(": ")));
  else {
    const r = answer.json;
    if (r.logs?.stdout?.length) entry.append(el("pre", "out", linesText(r.logs.stdout.slice(0, 50))));
    if (r.logs?.stderr?.length) entry.append(el("pre", "out stderr", linesText(r.logs.stderr.slice(0, 50))));
    const first = r.results?.[0];
    if (first) entry.append(el("pre", "val", clip("json" in first ? JSON.stringify(first.json) : String(first.text), 2000)));
    if (r.error) entry.append(el("pre", "err", clip(`${r.error.name}: ${r.error.message}`, 2000)));
  }
  ui.transcript.scrollTop = ui.transcript.scrollHeight;
}

async function replRun() {
  const code = ui.replInput.value;
  if (running || code.trim() === "") return;
  if (replHistory.at(-1) !== code) replHistory.push(code);
  replHistory = replHistory.slice(-MAX_HISTORY);
  store.set(`history:${lang()}`, JSON.stringify(replHistory));
  historyIndex = replHistory.length;
  historyDraft = "";
  ui.replInput.value = "";
  const entry = transcriptEntry(code);
  busy(true);
  try {
    transcriptOutcome(entry, await execute(code));
  } finally {
    busy(false);
    ui.replInput.focus();
  }
}

function onReplKey(event) {
  const input = ui.replInput;
  if (event.key === "Enter" && !event.shiftKey && !event.altKey) {
    event.preventDefault();
    replRun();
    return;
  }
  const before = input.value.slice(0, input.selectionStart);
  const after = input.value.slice(input.selectionEnd);
  // ↑ on the first line recalls the line before; ↓ on the last line the one after (and at the end, what was typed).
  if (event.key === "ArrowUp" && !before.includes("\n") && historyIndex > 0) {
    event.preventDefault();
    if (historyIndex === replHistory.length) historyDraft = input.value;
    input.value = replHistory[--historyIndex];
  } else if (event.key === "ArrowDown" && !after.includes("\n") && historyIndex < replHistory.length) {
    event.preventDefault();
    historyIndex++;
    input.value = historyIndex === replHistory.length ? historyDraft : replHistory[historyIndex];
  }
}

// --- the session strip: the context last used, from the execute answer and GET …/sandboxes/:id (SandboxInfo) -------
const strip = { executions: "–", cwd: "–", pages: "–", bytes: "–", storedBytes: "–", stale: "–", expires: "–" };
let expiresAt = null;

function bytesLabel(n) {
  if (typeof n !== "number") return "–";
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(2)} MiB`;
}

function renderStrip() {
  for (const dd of ui.strip.querySelectorAll("dd")) {
    const field = dd.dataset.field;
    const value = field === "expires" ? expiresAt : strip[field];
    dd.dataset.value = value === null || value === undefined ? "" : String(value);
    if (field === "bytes" || field === "storedBytes") dd.textContent = bytesLabel(value);
    else if (field === "expires") {
      if (typeof value !== "number") dd.textContent = value === null ? "never" : "–";
      else {
        const s = Math.max(0, Math.round((value - Date.now()) / 1000));
        dd.textContent = s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
      }
    } else dd.textContent = value === null || value === undefined ? "–" : String(value);
  }
}
setInterval(() => typeof expiresAt === "number" && !ui.session.hidden && renderStrip(), 1000);

// `c`: a context's fields (an execute's `context`, or SandboxInfo's `contexts[]` entry); `info`: the sandbox's.
function updateStrip(c, info) {
  if (c) {
    strip.executions = c.executions ?? strip.executions;
    strip.cwd = c.cwd ?? strip.cwd;
    if ("snapshot" in c) {
      strip.pages = c.snapshot?.pages ?? "–";
      strip.bytes = c.snapshot?.bytes ?? "–";
      strip.storedBytes = c.snapshot?.storedBytes ?? "–";
      strip.stale = c.snapshot ? String(c.snapshot.stale) : "–";
    }
    if ("expiresAt" in c) expiresAt = c.expiresAt;
  } else {
    Object.assign(strip, { executions: 0, cwd: "–", pages: "–", bytes: "–", storedBytes: "–", stale: "–" });
  }
  if (info) expiresAt = info.expiresAt;
  renderStrip();
}

// GET …/sandboxes/:id: the context list and the strip (the context `select`ed, else the one chosen, else this
// language's default context: its oldest).
async function refreshSandbox(select) {
  const answer = await call("GET", sandboxPath());
  const binding = lang().toUpperCase();
  const keep = select ?? ui.context.value;
  const mine = answer.ok && Array.isArray(answer.json?.contexts) ? answer.json.contexts.filter((c) => c.binding === binding) : [];
  const options = [new Option("default for this language", "")];
  for (const c of mine) options.push(new Option(`${c.id.slice(0, 8)} (${c.cwd})`, c.id));
  ui.context.replaceChildren(...options);
  ui.context.value = options.some((o) => o.value === keep) ? keep : "";
  const shown = mine.find((c) => c.id === (select ?? ui.context.value)) ?? (ui.context.value ? null : mine[0]);
  updateStrip(shown ?? null, answer.ok ? answer.json : { expiresAt: undefined });
}

async function newContext() {
  const answer = await call("POST", sandboxPath("/contexts"), {});
  setRaw(answer.text);
  if (answer.status !== 201) {
    clearOutput();
    showFailure(answer);
    return;
  }
  await refreshSandbox(answer.json.id);
  setStatus(`Created context ${answer.json.id.slice(0, 8)} (${answer.json.language}).`);
}

async function deleteContext() {
  if (!ui.context.value) return;
  const answer = await call("DELETE", sandboxPath(`/contexts/${encodeURIComponent(ui.context.value)}`));
  if (!answer.ok) showFailure(answer);
  await refreshSandbox("");
}

function newSession() {
  ui.sandboxId.value = `pg-${crypto.randomUUID().slice(0, 8)}`;
  ui.context.replaceChildren(new Option("default for this language", ""));
  ui.transcript.replaceChildren();
  applyMode();
  setStatus(`New session: sandbox ${ui.sandboxId.value}.`);
}

// Reset: destroys the sandbox (DELETE …/sandboxes/:id: its contexts, files and env); the id stays, empty.
async function resetSession() {
  const answer = await call("DELETE", sandboxPath());
  setRaw(answer.text);
  ui.transcript.replaceChildren();
  clearOutput();
  if (!answer.ok) showFailure(answer);
  await refreshSandbox("");
  await refreshFiles();
  setStatus(answer.ok ? `Sandbox ${ui.sandboxId.value} reset: no contexts, no files.` : "Reset failed.", answer.ok ? "ok" : "error");
}

// --- workspace files ---------------------------------------------------------------------------------------------
const files = (body) => call("POST", sandboxPath("/files"), body);

function base64Of(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function refreshFiles() {
  const answer = await files({ op: "list", path: "/workspace", recursive: true });
  ui.fileList.replaceChildren();
  if (!answer.ok) {
    ui.filesStatus.textContent = answer.json?.message ?? `HTTP ${answer.status}`;
    return;
  }
  const list = answer.json.files ?? [];
  ui.filesStatus.textContent = list.length ? `${list.length} entr${list.length === 1 ? "y" : "ies"}` : "No files yet: upload one, or write one from code.";
  for (const f of list.slice(0, 1000)) {
    const row = ui.fileList.insertRow();
    row.dataset.path = f.absolutePath;
    row.insertCell().append(el("span", "kind", f.type === "directory" ? "dir" : "file"));
    const path = row.insertCell();
    path.className = "path";
    path.textContent = f.absolutePath;
    const size = row.insertCell();
    size.className = "size";
    size.textContent = f.type === "directory" ? "" : `${f.size} B`;
    const ops = row.insertCell();
    ops.className = "ops";
    if (f.type === "file") {
      const download = el("button", "download", "Download");
      download.setAttribute("aria-label", `Download ${f.absolutePath}`);
      download.onclick = () => downloadFile(f.absolutePath, f.name);
      ops.append(download, " ");
    }
    const remove = el("button", "delete", "Delete");
    remove.setAttribute("aria-label", `Delete ${f.absolutePath}`);
    remove.onclick = async () => {
      const r = await files({ op: "delete", path: f.absolutePath, recursive: true });
      if (!r.ok) ui.filesStatus.textContent = r.json?.message ?? `HTTP ${r.status}`;
      await refreshFiles();
    };
    ops.append(remove);
  }
}

async function downloadFile(path, name) {
  const answer = await files({ op: "read", path, encoding: "base64" });
  if (!answer.ok) {
    ui.filesStatus.textContent = answer.json?.message ?? `HTTP ${answer.status}`;
    return;
  }
  const bytes = Uint8Array.from(atob(answer.json.content), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: answer.json.mimeType || "application/octet-stream" }));
  const a = el("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function upload() {
  for (const file of ui.upload.files) {
    ui.filesStatus.textContent = `Uploading ${file.name}…`;
    const content = base64Of(new Uint8Array(await file.arrayBuffer()));
    const answer = await files({ op: "write", path: `/workspace/${file.name}`, content, encoding: "base64" });
    if (!answer.ok) {
      ui.filesStatus.textContent = `${file.name}: ${answer.json?.message ?? `HTTP ${answer.status}`}`;
      ui.upload.value = "";
      return;
    }
  }
  ui.upload.value = "";
  await refreshFiles();
}

// --- examples and the deploy snippet -----------------------------------------------------------------------------
function openExample() {
  const example = LANGUAGES[lang()]?.examples?.[Number(ui.example.value)];
  if (!ui.example.value || !example) return;
  if (example.mode === "context" && mode() === "stateless") ui.mode.value = "context";
  else if (mode() === "repl") ui.mode.value = example.mode === "context" ? "context" : "stateless";
  if (example.envVars) ui.env.value = JSON.stringify(example.envVars, null, 2);
  checkEnv();
  applyMode();
  setCode(example.code);
  // Focus stays on the picker: arrowing through the examples by keyboard must not jump away.
  setStatus(`Example: ${example.title}. Ctrl/Cmd+Enter runs it.`, "");
}

function deployText(id) {
  return (LANGUAGES[id]?.deploy ?? []).map(([name, text]) => `// ${name}\n${text.trimEnd()}`).join("\n\n");
}

function showDeploy(id) {
  ui.deployCommand.textContent = `npx @sandbox-workers/cli init ${id}`;
  ui.deploy.textContent = `$ npx @sandbox-workers/cli init ${id}\n\n${deployText(id)}`;
}

// --- wiring ------------------------------------------------------------------------------------------------------
function applyMode() {
  const sandbox = inSandbox();
  const repl = mode() === "repl";
  ui.contextBar.hidden = !sandbox;
  ui.session.hidden = !sandbox;
  ui.files.hidden = !sandbox;
  ui.editor.hidden = repl;
  ui.repl.hidden = !repl;
  if (sandbox) {
    refreshSandbox();
    refreshFiles();
  }
  writeHashSoon();
}

async function start() {
  const state = readHash();
  ui.sandboxId.value = state.sandbox || `pg-${crypto.randomUUID().slice(0, 8)}`;
  if (["context", "stateless", "repl"].includes(state.mode)) ui.mode.value = state.mode;
  const saved = store.get("env");
  if (saved !== null) ui.env.value = saved;
  checkEnv();
  const answer = await call("GET", "/languages");
  languages = answer.json?.languages ?? [];
  for (const l of languages) {
    const option = new Option(l.enabled ? l.name : `${l.name} (unavailable)`, l.id);
    option.disabled = !l.enabled;
    option.title = l.engine ?? l.error ?? "";
    ui.language.append(option);
  }
  const initial = languages.find((l) => l.id === state.language && l.enabled) ?? languages.find((l) => l.enabled);
  if (state.code !== null) setCode(state.code);
  if (initial) setLanguage(initial.id, { keepCode: state.code !== null });
  ui.language.onchange = () => setLanguage(lang());
  ui.mode.onchange = () => {
    applyMode();
    if (mode() === "repl") ui.replInput.focus();
  };
  ui.sandboxId.onchange = () => {
    ui.context.replaceChildren(new Option("default for this language", "")); // the old sandbox's contexts
    applyMode();
  };
  ui.example.onchange = openExample;
  ui.run.onclick = run;
  ui.share.onclick = () => {
    writeHash();
    copy(location.href, "Link copied.");
  };
  ui.newContext.onclick = newContext;
  ui.deleteContext.onclick = deleteContext;
  ui.context.onchange = () => refreshSandbox();
  ui.newSession.onclick = newSession;
  ui.reset.onclick = resetSession;
  ui.refreshSession.onclick = () => refreshSandbox();
  ui.clearLog.onclick = () => {
    clearOutput();
    ui.transcript.replaceChildren();
    setStatus("Log cleared.", "");
  };
  ui.env.oninput = checkEnv;
  ui.copyRaw.onclick = () => copy(lastRaw, "Raw JSON copied.");
  ui.copyDeploy.onclick = () => copy(ui.deploy.textContent, "Deploy snippet copied.");
  ui.replInput.addEventListener("keydown", onReplKey);
  ui.upload.onchange = upload;
  // Ctrl/Cmd+Enter outside the editor too (the editor's own keymap handles it inside).
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented && !editor.hasFocus) {
      event.preventDefault();
      run();
    }
  });
  ui.refreshFiles.onclick = refreshFiles;
  applyMode();
  document.body.dataset.ready = "true";
  if (mode() === "repl") ui.replInput.focus();
  else editor.focus();
}

start();
