// The Playground page (served by the gateway as a static asset; bundled by scripts/build-playground.mjs). It speaks
// only the gateway's routes (protocol §8): GET /languages, POST /execute/<language>, and the sandbox routes
// /languages/<language>/sandboxes/<id>/{execute,contexts,files}. What it renders is bounded, so a huge output or a
// deep result never locks the page up; a runaway program ends on the server when its fuel runs out.
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { Compartment, EditorState, Prec } from "@codemirror/state";
// Each language's sample program and editor mode, from its manifest (engines/<id>/engine.json: `sample`, `editor`):
// scripts/build-playground.mjs generates this module (scripts/languages.mjs, pageModule).
import { LANGUAGES } from "sandbox:languages";

// Rendering bounds (the server bounds output too: 200 log entries, 32 KiB of logs, 64 KiB of result).
const MAX_LINES = 500;
const MAX_CHARS = 100_000;
const MAX_CHILDREN = 200;
const REQUEST_TIMEOUT_MS = 120_000;

const $ = (id) => document.getElementById(id);
const ui = {
  language: $("language"), mode: $("mode"), run: $("run"), share: $("share"),
  contextBar: $("context-bar"), sandboxId: $("sandbox-id"), context: $("context"),
  newContext: $("new-context"), deleteContext: $("delete-context"),
  status: $("status"), error: $("error"), result: $("result"),
  stdoutBox: $("stdout-box"), stdout: $("stdout"), stderrBox: $("stderr-box"), stderr: $("stderr"),
  files: $("files"), upload: $("upload"), refreshFiles: $("refresh-files"), filesStatus: $("files-status"),
  fileList: $("file-list").tBodies[0],
};

let languages = [];
let running = false;

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
  params.set("language", ui.language.value);
  params.set("mode", ui.mode.value);
  if (ui.mode.value === "context") params.set("sandbox", ui.sandboxId.value);
  params.set("code", editor.state.doc.toString());
  history.replaceState(null, "", `#${params}`);
}

let hashTimer = 0;
function writeHashSoon() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(writeHash, 300);
}

// --- the editor --------------------------------------------------------------------------------------------------
const highlight = new Compartment();
const editor = new EditorView({
  parent: $("editor"),
  state: EditorState.create({
    doc: "",
    extensions: [
      Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (run(), true) }])),
      basicSetup,
      highlight.of([]),
      EditorView.updateListener.of((update) => update.docChanged && writeHashSoon()),
    ],
  }),
});

function setCode(code) {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: code } });
}

function setLanguage(id, { keepCode = false } = {}) {
  const previous = ui.language.dataset.current;
  ui.language.value = id;
  ui.language.dataset.current = id;
  editor.dispatch({ effects: highlight.reconfigure(LANGUAGES[id] ? LANGUAGES[id].highlight() : []) });
  const code = editor.state.doc.toString();
  // A sample replaces the editor's text only while it still holds the previous language's sample (or nothing).
  if (!keepCode && (code.trim() === "" || code === LANGUAGES[previous]?.sample)) setCode(LANGUAGES[id]?.sample ?? "");
  const entry = languages.find((l) => l.id === id);
  const contextOption = ui.mode.querySelector('option[value="context"]');
  contextOption.textContent = entry && !entry.contexts ? "Code context (stateless only)" : "Code context";
  if (ui.mode.value === "context") refreshContexts();
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
  `/languages/${encodeURIComponent(ui.language.value)}/sandboxes/${encodeURIComponent(ui.sandboxId.value)}${sub}`;

// --- rendering ---------------------------------------------------------------------------------------------------
function clip(text) {
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n… (${text.length - MAX_CHARS} more characters)` : text;
}

function showLines(box, pre, lines) {
  box.hidden = !lines || lines.length === 0;
  if (box.hidden) return;
  const shown = lines.slice(0, MAX_LINES).join("\n");
  pre.textContent = clip(shown) + (lines.length > MAX_LINES ? `\n… (${lines.length - MAX_LINES} more lines)` : "");
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

// An ErrorResponse (protocol §3.6) or any other non-200 answer, readable.
function showFailure(answer) {
  const body = answer.json;
  if (body && typeof body === "object" && typeof body.message === "string") {
    const context = body.context && Object.keys(body.context).length ? JSON.stringify(body.context, null, 2) : "";
    showError(`${answer.status} ${body.code ?? "Error"}`, body.message, [], context);
  } else {
    showError(`HTTP ${answer.status}`, answer.text.slice(0, 2000) || "(empty response)");
  }
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

// --- running -----------------------------------------------------------------------------------------------------
async function run() {
  if (running) return;
  running = true;
  ui.run.disabled = true;
  ui.run.textContent = "Running…";
  clearOutput();
  ui.status.textContent = "Running…";
  ui.status.dataset.state = "running";
  writeHash();
  const code = editor.state.doc.toString();
  try {
    let answer;
    if (ui.mode.value === "context") {
      const body = { code };
      if (ui.context.value) body.contextId = ui.context.value;
      answer = await call("POST", sandboxPath("/execute"), body);
    } else {
      answer = await call("POST", `/execute/${encodeURIComponent(ui.language.value)}`, { code });
    }
    if (answer.ok && answer.json) showResult(answer.json);
    else {
      ui.status.textContent = "Failed.";
      ui.status.dataset.state = "error";
      showFailure(answer);
    }
    if (ui.mode.value === "context") {
      await refreshContexts(answer.json?.context?.id);
      await refreshFiles();
    }
  } catch (error) {
    ui.status.textContent = "Failed.";
    ui.status.dataset.state = "error";
    showError(error.name === "AbortError" ? "Timeout" : "NetworkError", error.message);
  } finally {
    running = false;
    ui.run.disabled = false;
    ui.run.textContent = "Run";
  }
}

// --- contexts ----------------------------------------------------------------------------------------------------
async function refreshContexts(select) {
  const answer = await call("GET", sandboxPath("/contexts"));
  const binding = ui.language.value.toUpperCase();
  const keep = select ?? ui.context.value;
  const options = [new Option("default for this language", "")];
  if (answer.ok && Array.isArray(answer.json?.contexts)) {
    for (const c of answer.json.contexts) {
      if (c.binding !== binding) continue;
      options.push(new Option(`${c.id.slice(0, 8)} (${c.cwd})`, c.id));
    }
  }
  ui.context.replaceChildren(...options);
  ui.context.value = options.some((o) => o.value === keep) ? keep : "";
}

async function newContext() {
  const answer = await call("POST", sandboxPath("/contexts"), {});
  if (answer.status !== 201) {
    clearOutput();
    showFailure(answer);
    return;
  }
  await refreshContexts(answer.json.id);
  ui.status.textContent = `Created context ${answer.json.id.slice(0, 8)} (${answer.json.language}).`;
}

async function deleteContext() {
  if (!ui.context.value) return;
  const answer = await call("DELETE", sandboxPath(`/contexts/${encodeURIComponent(ui.context.value)}`));
  if (!answer.ok) showFailure(answer);
  await refreshContexts("");
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
      download.onclick = () => downloadFile(f.absolutePath, f.name);
      ops.append(download, " ");
    }
    const remove = el("button", "delete", "Delete");
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

// --- wiring ------------------------------------------------------------------------------------------------------
function applyMode() {
  const context = ui.mode.value === "context";
  ui.contextBar.hidden = !context;
  ui.files.hidden = !context;
  if (context) {
    refreshContexts();
    refreshFiles();
  }
  writeHashSoon();
}

async function start() {
  const state = readHash();
  ui.sandboxId.value = state.sandbox || `pg-${crypto.randomUUID().slice(0, 8)}`;
  if (state.mode === "context" || state.mode === "stateless") ui.mode.value = state.mode;
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
  ui.language.onchange = () => setLanguage(ui.language.value);
  ui.mode.onchange = applyMode;
  ui.sandboxId.onchange = applyMode;
  ui.run.onclick = run;
  ui.share.onclick = async () => {
    writeHash();
    try {
      await navigator.clipboard.writeText(location.href);
      ui.status.textContent = "Link copied.";
    } catch {
      ui.status.textContent = "The address bar holds the link.";
    }
  };
  ui.newContext.onclick = newContext;
  ui.deleteContext.onclick = deleteContext;
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
  editor.focus();
}

start();
