// The Playground page in a real browser: Debian's chromium, headless, driven by playwright-core (no browser is
// downloaded), against the gateway and every runtime in workerd (Miniflare listening on 127.0.0.1, on-disk storage).
// Each step saves a screenshot to build/test-output/playground/; the JavaScript-context one is also the README's
// picture, docs/images/playground.png (generated here, never committed).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { ROOT } from "../integration/helpers.mjs";
import { startPlayground, LANGUAGES, MANIFESTS, buildPage } from "./harness.mjs";
import { loadExamples } from "../../scripts/languages.mjs";
import { docSources, docUrl } from "../../scripts/build-docs.mjs";
import { runExample, checkExample } from "./examples.mjs";

const CHROMIUM = process.env.SW_CHROMIUM ?? "/usr/bin/chromium";
const SHOTS = path.join(ROOT, "build/test-output/playground");
// The flags that work here as root (no setuid sandbox, no GPU, nothing fetched in the background).
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];

let pg;
let browser;
let page;
let persist;
let profile;

async function shot(name) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

// Replaces the editor's text (CodeMirror's content is a contenteditable).
async function setCode(code) {
  await page.click(".cm-content");
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(code);
}

// Runs with the Run button (or `how`) and waits for the answer to be rendered.
async function run(how = () => page.click("#run")) {
  await page.waitForFunction(() => !document.getElementById("run").disabled);
  await how();
  await page.waitForFunction(() => ["ok", "error"].includes(document.getElementById("status").dataset.state));
  await page.waitForFunction(() => !document.getElementById("run").disabled);
}

const text = (selector) => page.locator(selector).innerText();
// The last response, as the raw JSON view shows it.
const raw = async () => JSON.parse(await page.locator("#raw").textContent());
const strip = (field) => page.getAttribute(`#session-strip dd[data-field="${field}"]`, "data-value");
const origin = () => new URL(pg.url).origin;

before(async () => {
  buildPage({ force: true });
  mkdirSync(SHOTS, { recursive: true });
  persist = mkdtempSync(path.join(tmpdir(), "sw-playground-"));
  profile = mkdtempSync(path.join(tmpdir(), "sw-chromium-"));
  pg = await startPlayground({ shared: { host: "127.0.0.1", port: 0, resourcePersistencePath: persist } });
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 860 },
    acceptDownloads: true,
  });
  await browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: origin() });
  page = await browser.newPage();
});

after(async () => {
  await browser?.close();
  await pg?.dispose();
  for (const dir of [persist, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("Playground page (headless Chromium)", () => {
  it("loads, lists every language from GET /languages and shows JavaScript's sample in a highlighted editor", async () => {
    await page.goto(new URL("/", pg.url).href);
    await page.waitForSelector('body[data-ready="true"]');
    const options = await page.locator("#language option").evaluateAll((os) => os.map((o) => [o.value, o.disabled]));
    assert.deepEqual(options, LANGUAGES.map((l) => [l, false]));
    assert.equal(await page.inputValue("#language"), "javascript");
    assert.match(await text(".cm-content"), /hello from QuickJS/);
    // CodeMirror's highlighter styles tokens: the sample's string literal is in a highlighted span.
    assert.ok(await page.locator(".cm-content span[class]").count() > 0, "highlighted tokens");
    await shot("01-loaded");
  });

  it("runs JavaScript with Ctrl+Enter and renders the JSON result as a collapsible tree, stdout, duration and fuel", async () => {
    await setCode('console.log("from the page");\n({ list: [1, 2, 3], nested: { ok: true } })');
    await run(() => page.keyboard.press("Control+Enter"));
    assert.equal(await page.getAttribute("#status", "data-state"), "ok");
    const status = await text("#status");
    assert.match(status, /javascript/);
    assert.match(status, /ms/);
    assert.match(status, /fuel [\d,]+ \/ 50,000,000/);
    assert.equal(await text("#stdout"), "from the page");
    const tree = page.locator("#result .tree");
    assert.match(await tree.innerText(), /list: Array\(3\)/);
    // Collapsed children are built when opened.
    await page.locator("#result .tree summary", { hasText: "list" }).click();
    await page.locator("#result .tree .leaf", { hasText: "0: 1" }).waitFor(); // built on the toggle event
    assert.match(await tree.innerText(), /0: 1\s+1: 2\s+2: 3/);
    await shot("02-javascript");
  });

  it("runs Python and shows its text result", async () => {
    await page.selectOption("#language", "python");
    // Each language has its own draft: Python, never edited, starts with its sample.
    assert.match(await text(".cm-content"), /hello from/);
    await setCode("import sys\nprint(sys.version_info[:2])\n6 * 7");
    await run();
    assert.equal(await text("#result pre"), "42");
    assert.equal(await text("#stdout"), "(3, 13)");
    assert.match(await text("#status"), /python/);
    await shot("03-python");
  });

  it("shows a guest error with its traceback", async () => {
    await setCode("def f():\n    return 1 / 0\nf()");
    await run();
    const error = await text("#error");
    assert.match(error, /ZeroDivisionError: division by zero/);
    assert.match(error, /line 2, in f/);
    await shot("04-python-error");
  });

  it("a runaway program ends with ExecutionLimitError (fuel) and the page stays usable", async () => {
    await setCode("while True:\n    pass");
    await run();
    assert.match(await text("#error"), /ExecutionLimitError: Execution fuel exhausted/);
    await setCode("1 + 1");
    await run();
    assert.equal(await text("#result pre"), "2");
  });

  it("a huge output is reported as the runtime's output limit, rendered within bounds", async () => {
    await setCode('for i in range(100000):\n    print("x" * 100)');
    await run();
    assert.match(await text("#error"), /ExecutionLimitError: Output limit exceeded/);
    await page.selectOption("#language", "javascript");
    await setCode("Array.from({ length: 5000 }, (_, i) => ({ i }))");
    await run();
    // 5,000 elements: the open tree shows the first 200 and says how many more there are.
    assert.match(await text("#result"), /… 4800 more/);
    assert.equal(await page.locator("#result .tree details details").count(), 200);
  });

  it("shows an ErrorResponse readably (a request the runtime refuses)", async () => {
    await setCode("x".repeat(70_000));
    await run();
    assert.match(await text("#error"), /413 VALIDATION_FAILED: Code exceeds 64 KiB/);
  });

  it("keeps language, mode and code in the URL: the link opens the same state", async () => {
    await page.selectOption("#language", "lua");
    await setCode('return "shared " .. 1 + 1');
    await run();
    assert.equal(await text("#result pre"), "shared 2");
    const link = page.url();
    assert.match(link, /#language=lua&mode=stateless&code=/);
    const other = await browser.newPage();
    await other.goto(link);
    await other.waitForSelector('body[data-ready="true"]');
    assert.equal(await other.inputValue("#language"), "lua");
    assert.equal(await other.inputValue("#mode"), "stateless");
    assert.equal(await other.locator(".cm-content").innerText(), 'return "shared " .. 1 + 1');
    await other.close();
  });

  it("works on a phone-sized screen: nothing overflows sideways, and it runs", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.selectOption("#language", "ruby");
    await setCode("[1, 2, 3].sum");
    await run();
    assert.equal(await text("#result pre"), "6");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `horizontal overflow of ${overflow}px`);
    await shot("05-phone");
    await page.setViewportSize({ width: 1280, height: 860 });
  });
});

describe("Playground page: code contexts and workspace files (headless Chromium)", () => {
  it("creates a named context and keeps its state from one run to the next", async () => {
    await page.goto("about:blank"); // a new load, not a fragment change of the page already open
    await page.goto(new URL("/#language=python&mode=context&sandbox=pg-browser", pg.url).href);
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.isVisible("#context-bar"), true);
    await page.click("#new-context");
    await page.waitForFunction(() => document.getElementById("context").value !== "");
    const contextId = await page.inputValue("#context");
    await setCode("counter = 41");
    await run();
    assert.equal(await page.getAttribute("#status", "data-state"), "ok");
    await setCode("counter += 1\ncounter");
    await run();
    assert.equal(await text("#result pre"), "42");
    assert.match(await text("#status"), new RegExp(`context ${contextId.slice(0, 8)} · run #2`));
    assert.equal(await page.inputValue("#context"), contextId);
    await shot("06-context");
  });

  it("uploads a file into the workspace, lists it, and code in the context reads it", async () => {
    await page.setInputFiles("#upload", { name: "data.txt", mimeType: "text/plain", buffer: Buffer.from("uploaded from the browser\n") });
    await page.waitForSelector('#file-list tr[data-path="/workspace/data.txt"]');
    assert.match(await text("#file-list"), /\/workspace\/data\.txt\s+26 B/);
    await setCode("open('/workspace/data.txt').read().strip()");
    await run();
    assert.equal(await text("#result pre"), "'uploaded from the browser'");
    await shot("07-files");
  });

  it("a file written by code appears in the list, downloads with its bytes, and deletes", async () => {
    await setCode("with open('/workspace/out.csv', 'w') as f:\n    f.write('a,b\\n1,2\\n')");
    await run();
    const row = page.locator('#file-list tr[data-path="/workspace/out.csv"]');
    await row.waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), row.locator("button.download").click()]);
    assert.equal(download.suggestedFilename(), "out.csv");
    assert.equal(readFileSync(await download.path(), "utf8"), "a,b\n1,2\n");
    await row.locator("button.delete").click();
    await page.waitForSelector('#file-list tr[data-path="/workspace/out.csv"]', { state: "detached" });
    await setCode("import os\nsorted(os.listdir('/workspace'))");
    await run();
    assert.deepEqual(JSON.parse(await page.evaluate(() => JSON.stringify([...document.querySelectorAll("#result .tree .str")].map((e) => JSON.parse(e.textContent))))), ["data.txt"]);
  });

  it("JavaScript in the same sandbox gets a context of its own and reads the same files", async () => {
    await page.selectOption("#language", "javascript");
    // Python's context is not JavaScript's: the list now holds only JavaScript's (none yet).
    await page.waitForFunction(() => document.getElementById("context").options.length === 1);
    await setCode('const text = fs.readFileSync("/workspace/data.txt", "utf8").trim();\nconsole.log("read", text.length, "characters");\n({ text, words: text.split(" ") })');
    await run();
    assert.match(await text("#result .tree"), /text: "uploaded from the browser"\s+words: Array\(4\)/);
    assert.equal(await text("#stdout"), "read 25 characters");
    assert.match(await text("#status"), /context [0-9a-f]{8} · run #1/);
    await shot("08-javascript-context");
    mkdirSync(path.join(ROOT, "docs/images"), { recursive: true });
    copyFileSync(path.join(SHOTS, "08-javascript-context.png"), path.join(ROOT, "docs/images/playground.png"));
  });

  it("a run right after switching language goes to the new language, never to the previous one's context", async () => {
    await page.selectOption("#language", "python");
    await page.waitForFunction(() => document.getElementById("context").options.length > 1);
    await page.selectOption("#context", { index: 1 }); // Python's named context
    await page.selectOption("#language", "javascript");
    assert.equal(await page.inputValue("#context"), "", "the previous language's context is not kept");
    await setCode("typeof globalThis.counter");
    await run();
    const answer = await raw();
    assert.equal(answer.language, "javascript");
    assert.deepEqual(answer.results, [{ text: "'undefined'" }]);
  });
});

// Every text on screen against its background (WCAG 2 contrast: 4.5:1, 3:1 for large text); disabled controls are
// exempt. Returns the failures.
function contrastFailures() {
  const rgba = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 1];
    const [r, g, b, a = 1] = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return [r, g, b, a];
  };
  const lum = (c) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const background = (node) => {
    const layers = [];
    for (let e = node; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let base = [255, 255, 255];
    for (const c of layers.reverse()) base = base.map((v, i) => v * (1 - c[3]) + c[i] * c[3]);
    return base;
  };
  const failures = [];
  for (const node of document.querySelectorAll("body *")) {
    const own = [...node.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !node.getClientRects().length || node.closest("[disabled], option")) continue;
    const style = getComputedStyle(node);
    if (style.visibility === "hidden") continue;
    const bg = background(node);
    const fg = rgba(style.color);
    const ink = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const [hi, lo] = [lum(ink), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) failures.push(`${node.tagName.toLowerCase()}#${node.id}.${node.className} "${node.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
  }
  return failures;
}

async function assertContrast() {
  assert.deepEqual(await page.evaluate(contrastFailures), []);
}

async function openPage(hash = "") {
  await page.goto("about:blank"); // a new load, not a fragment change of the page already open
  await page.goto(new URL(`/${hash}`, pg.url).href);
  await page.waitForSelector('body[data-ready="true"]');
}

describe("Playground page: examples (every one through the gateway; each language's first in the browser)", () => {
  it("every language has at least six examples, and every example runs green through the gateway", async () => {
    const jobs = [];
    for (const l of MANIFESTS) {
      const examples = loadExamples(l);
      assert.ok(examples.length >= 6, `${l.id}: ${examples.length} examples`);
      examples.forEach((example, i) => jobs.push([l.id, example, `examples-${l.id}-${i}`]));
    }
    const failures = [];
    // Four at a time: the runtimes are separate Workers, and the suite runs on 2 cores.
    for (let i = 0; i < jobs.length; i += 4) {
      const done = await Promise.all(jobs.slice(i, i + 4).map(([id, example, sandbox]) => runExample(pg.fetch, id, example, sandbox)));
      done.forEach(({ problems }, k) => problems.length && failures.push(`${jobs[i + k][0]} "${jobs[i + k][1].title}": ${problems.join("; ")}`));
    }
    assert.deepEqual(failures, []);
  });

  for (const id of LANGUAGES) {
    it(`${id}: the first example opens from the picker and runs green`, async () => {
      await openPage();
      await page.selectOption("#language", id);
      const example = loadExamples(MANIFESTS.find((l) => l.id === id))[0];
      const titles = await page.locator("#example option").allTextContents();
      assert.equal(titles[1], example.title);
      await page.selectOption("#example", "0");
      assert.equal(await page.locator(".cm-content").innerText(), example.code);
      await run();
      assert.deepEqual(checkExample(example, { status: 200, json: await raw() }), []);
      await shot(`10-example-${id}`);
    });
  }

  it("a context example sets the mode: run twice, the context keeps its state", async () => {
    await page.selectOption("#language", "python");
    const examples = loadExamples(MANIFESTS.find((l) => l.id === "python"));
    const index = examples.findIndex((e) => e.runs === 2);
    await page.selectOption("#example", String(index));
    assert.equal(await page.inputValue("#mode"), "context");
    await run();
    await run();
    assert.deepEqual(checkExample(examples[index], { status: 200, json: await raw() }), []);
    assert.equal(await strip("executions"), "2");
  });

  it("an example's env vars fill the env pane and reach the program", async () => {
    await openPage();
    await page.selectOption("#language", "lua");
    const examples = loadExamples(MANIFESTS.find((l) => l.id === "lua"));
    const index = examples.findIndex((e) => e.envVars);
    await page.selectOption("#example", String(index));
    assert.deepEqual(JSON.parse(await page.inputValue("#env")), examples[index].envVars);
    await run();
    assert.equal(await text("#result pre"), "Hello, Ada!");
  });
});

describe("Playground page: REPL, env vars, session strip (headless Chromium)", () => {
  it("REPL: Enter runs a line, Shift+Enter continues it, lines build on each other, the snapshot grows in the strip", async () => {
    await openPage("#language=python&mode=repl&sandbox=pg-repl");
    assert.equal(await page.isVisible("#repl-input"), true);
    assert.equal(await page.isVisible("#editor"), false);
    assert.equal(await page.evaluate(() => document.activeElement.id), "repl-input");
    const line = async (code) => {
      const before = await page.locator("#transcript .entry").count();
      await page.locator("#repl-input").fill(code);
      await page.keyboard.press("Enter");
      await page.waitForFunction((n) => document.querySelectorAll("#transcript .entry").length === n + 1 && !document.getElementById("run").disabled, before);
      return page.locator("#transcript .entry").last();
    };
    await line("x = 20");
    assert.equal(await strip("executions"), "1");
    const firstBytes = Number(await strip("bytes"));
    assert.ok(firstBytes > 0, `snapshot bytes ${firstBytes}`);
    await line("y = x + 1");
    assert.equal(await (await line("x + y")).locator(".val").innerText(), "41");
    // The env pane's variables reach each entry.
    await page.fill("#env", '{ "WHO": "visitor" }');
    await page.focus("#repl-input");
    assert.equal(await (await line("import os; f\"{os.environ['WHO']} {x}\"")).locator(".val").innerText(), "'visitor 20'");
    await page.fill("#env", "{}");
    await page.focus("#repl-input");
    // Shift+Enter continues the input on a new line; Enter then runs both lines.
    await page.locator("#repl-input").fill("def twice(n):");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("    return n * 2");
    assert.equal(await page.inputValue("#repl-input"), "def twice(n):\n    return n * 2");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("#transcript .entry").length === 5 && !document.getElementById("run").disabled);
    const big = await line("print('made', len(big := list(range(300_000))))\ntwice(x)");
    assert.equal(await big.locator(".out").innerText(), "made 300000");
    assert.equal(await big.locator(".val").innerText(), "40");
    assert.equal(await strip("executions"), "6");
    assert.ok(Number(await strip("bytes")) > firstBytes, `snapshot grew: ${firstBytes} -> ${await strip("bytes")}`);
    assert.equal(await strip("stale"), "false");
    assert.ok(Number(await strip("pages")) > 0);
    assert.match(await page.locator('#session-strip dd[data-field="expires"]').innerText(), /^\d+ min \d+ s$/);
    // ↑ recalls earlier lines, newest first; ↓ goes back down to what was being typed.
    await page.locator("#repl-input").fill("draft");
    await page.keyboard.press("ArrowUp");
    assert.equal(await page.inputValue("#repl-input"), "print('made', len(big := list(range(300_000))))\ntwice(x)");
    // In a multi-line entry ↑ moves the caret first; from its first line it recalls the entry before.
    await page.keyboard.press("ControlOrMeta+Home");
    await page.keyboard.press("ArrowUp");
    assert.equal(await page.inputValue("#repl-input"), "def twice(n):\n    return n * 2");
    await page.keyboard.press("ControlOrMeta+Home");
    await page.keyboard.press("ArrowUp");
    assert.equal(await page.inputValue("#repl-input"), "import os; f\"{os.environ['WHO']} {x}\"");
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowDown");
    assert.equal(await page.inputValue("#repl-input"), "draft");
    await assertContrast();
    await shot("11-repl");
  });

  it("REPL: a line that runs out of fuel is reported, and the context goes on from its last state", async () => {
    await page.locator("#repl-input").fill("while True: pass");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("#transcript .entry").length === 7 && !document.getElementById("run").disabled);
    assert.match(await page.locator("#transcript .entry").last().locator(".err").innerText(), /ExecutionLimitError/);
    await page.locator("#repl-input").fill("x + 1");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("#transcript .entry").length === 8 && !document.getElementById("run").disabled);
    assert.equal(await page.locator("#transcript .entry").last().locator(".val").innerText(), "21");
  });

  it("env vars: the pane's JSON reaches the program as envVars", async () => {
    await openPage();
    await page.selectOption("#language", "python");
    await page.fill("#env", '{ "GREETING": "hi from the env pane", "N": "3" }');
    await setCode("import os\n[os.environ['GREETING']] * int(os.environ['N'])");
    await run();
    assert.deepEqual(await raw().then((r) => r.results[0].json), Array(3).fill("hi from the env pane"));
    assert.match(await text("#env-status"), /2 variable/);
  });

  it("env vars: a key or value the runtime would refuse is not sent, in the runtime's words", async () => {
    const sent = [];
    const onRequest = (request) => request.url().includes("/execute") && sent.push(request.url());
    page.on("request", onRequest);
    await page.fill("#env", '{ "1ST": "x" }');
    assert.equal(await text("#env-status"), "Not sent: Invalid envVars key: 1ST");
    assert.equal(await page.getAttribute("#env", "aria-invalid"), "true");
    await run();
    assert.match(await text("#error"), /Environment variables: Invalid envVars key: 1ST/);
    await page.fill("#env", '{ "A": 1 }');
    await run();
    assert.match(await text("#error"), /envVars values must be strings/);
    await page.fill("#env", "[1]");
    await run();
    assert.match(await text("#error"), /envVars must be an object/);
    page.off("request", onRequest);
    assert.deepEqual(sent, []);
    await shot("12-env-refused");
  });

  it("env vars: what only the runtime refuses is shown as its own error", async () => {
    // Well formed, but the request is larger than the runtime accepts: its ErrorResponse, as it answered.
    await page.fill("#env", JSON.stringify({ BIG: "v".repeat(120_000) }));
    await run();
    const answer = await raw();
    assert.equal(answer.httpStatus, 413);
    assert.match(await text("#error"), new RegExp(`413 ${answer.code}: ${answer.message}`));
    await page.fill("#env", "{}");
  });

  it("the session strip reads the sandbox back after the gateway's runtimes restart", async () => {
    await openPage("#language=python&mode=context&sandbox=pg-restart");
    await setCode("n = globals().get('n', 0) + 1\nn");
    await run();
    await run();
    assert.equal(await text("#result pre"), "2");
    assert.equal(await strip("executions"), "2");
    const port = Number(new URL(pg.url).port);
    await pg.dispose();
    pg = await startPlayground({ shared: { host: "127.0.0.1", port, resourcePersistencePath: persist } });
    await openPage("#language=python&mode=context&sandbox=pg-restart");
    await page.waitForFunction(() => document.querySelector('#session-strip dd[data-field="executions"]').dataset.value === "2");
    assert.equal(await strip("cwd"), "/workspace");
    assert.equal(await strip("stale"), "false");
    assert.ok(Number(await strip("storedBytes")) > 0);
    assert.ok(Number(await strip("expires")) > Date.now());
    await shot("13-session-after-restart");
    await run();
    assert.equal(await text("#result pre"), "3");
    assert.equal(await strip("executions"), "3");
  });

  it("raw JSON of the last response, copied whole", async () => {
    await page.click("#raw-box summary");
    const answer = await raw();
    assert.equal(answer.results[0].text, "3");
    assert.equal(answer.context.executions, 3);
    await page.click("#copy-raw");
    assert.deepEqual(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())), answer);
    await shot("14-raw-json");
  });

  it("Reset wipes the sandbox, New session starts another, Clear log empties the output", async () => {
    await page.click("#reset-session");
    await page.waitForFunction(() => /reset/.test(document.getElementById("status").textContent));
    assert.equal(await strip("executions"), "0");
    assert.equal(await page.locator("#context option").count(), 1);
    await run();
    assert.match(await text("#result pre"), /^1$/); // n started again
    const before = await page.inputValue("#sandbox-id");
    await page.click("#new-session");
    const after = await page.inputValue("#sandbox-id");
    assert.notEqual(after, before);
    assert.match(after, /^pg-[0-9a-f]{8}$/);
    await page.waitForFunction(() => document.querySelector('#session-strip dd[data-field="executions"]').dataset.value === "0");
    await page.click("#clear-log");
    assert.equal(await page.isVisible("#result"), false);
    assert.equal(await text("#status"), "Log cleared.");
  });

  it("drafts: each language keeps its code across a reload", async () => {
    await page.selectOption("#mode", "stateless");
    await page.selectOption("#language", "lua");
    await setCode('return "lua draft"');
    await page.selectOption("#language", "perl");
    await setCode('"perl draft"');
    await page.goto("about:blank");
    await page.goto(new URL("/", pg.url).href); // no fragment: nothing comes from the link
    await page.waitForSelector('body[data-ready="true"]');
    await page.selectOption("#language", "lua");
    assert.equal(await text(".cm-content"), 'return "lua draft"');
    await page.selectOption("#language", "perl");
    assert.equal(await text(".cm-content"), '"perl draft"');
  });

  it("the deploy snippet is the chosen runtime's, from its manifest and GET /languages, and copies", async () => {
    await page.selectOption("#language", "python");
    await page.click("#deploy-box summary");
    const snippet = await text("#deploy");
    const python = await page.evaluate(() => fetch("/languages").then((r) => r.json())).then((l) => l.languages.find((x) => x.id === "python"));
    assert.match(snippet, /^\$ npx @sandbox-workers\/cli init python/);
    assert.ok(snippet.includes(`"${python.package}": "`), "the package");
    assert.ok(snippet.includes(`{ "binding": "${python.binding}", "service": "sandbox-python" }`), "the binding");
    assert.ok(snippet.includes('"name": "sandbox-python"'));
    assert.ok(snippet.includes('"class_name": "Interpreter"'), "contexts: the Interpreter Durable Object");
    // Every language the gateway serves has code contexts now (Ruby's since issue 26): the snippet follows
    // GET /languages's `contexts`, so a language without them would get no Durable Object.
    const languages = await page.evaluate(() => fetch("/languages").then((r) => r.json())).then((l) => l.languages);
    for (const { id, contexts } of languages) {
      await page.selectOption("#language", id);
      assert.equal((await text("#deploy")).includes('"class_name": "Interpreter"'), !!contexts, `${id}: the Interpreter Durable Object iff contexts`);
    }
    await page.selectOption("#language", "ruby");
    await page.click("#copy-deploy");
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.locator("#deploy").textContent());
    await shot("15-deploy");
  });
});

describe("Playground page: /docs/, keyboard, phone, hostile output (headless Chromium)", () => {
  it("/docs/ serves README.md and every docs/*.md as HTML, and every link between them lands on a page and anchor", async () => {
    const ids = new Map();
    const links = [];
    for (const source of docSources(ROOT)) {
      const response = await pg.fetch(docUrl(source));
      assert.equal(response.status, 200, source);
      const html = await response.text();
      ids.set(docUrl(source), new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1])));
      for (const m of html.matchAll(/<a href="(\/docs\/[^"#]*)(?:#([^"]*))?"/g)) links.push([source, m[1], m[2]]);
    }
    assert.ok(ids.size >= 30 && links.length > 500, `${ids.size} pages, ${links.length} links`);
    const broken = links.filter(([, url, hash]) => !ids.has(url) || (hash && !ids.get(url).has(hash)));
    assert.deepEqual(broken, []);
  });

  it("/docs/ in the browser: from the page to the docs, then across pages by their links", async () => {
    await openPage();
    await page.click("#docs-link");
    await page.waitForURL(/\/docs\/$/);
    assert.match(await text("#doc h1"), /sandbox-workers/);
    await page.locator("nav a", { hasText: "The Playground" }).click();
    await page.waitForURL(/\/docs\/playground$/);
    await page.locator('#doc a[href="/docs/protocol/8-gateway-and-cli#8-gateway--playground"]').first().click();
    await page.waitForURL(/\/docs\/protocol\/8-gateway-and-cli#8-gateway--playground$/);
    assert.match(await text('[id="8-gateway--playground"]'), /Gateway/);
    await assertContrast();
    await shot("16-docs");
  });

  it("every control has a label, focus is visible, and Tab alone reaches every control and runs code", async () => {
    await openPage();
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll("input, select, textarea, button, summary, a, [contenteditable]")]
      .filter((e) => e.getClientRects().length)
      .filter((e) => !(e.labels?.length || e.getAttribute("aria-label") || e.getAttribute("aria-labelledby") || e.textContent.trim()))
      .map((e) => e.outerHTML.slice(0, 80)));
    assert.deepEqual(unlabelled, []);
    await page.focus("#language");
    const reached = [];
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press("Tab");
      reached.push(await page.evaluate(() => {
        const e = document.activeElement;
        const style = getComputedStyle(e);
        return { id: e.id || e.classList[0] || e.tagName, outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2 };
      }));
    }
    const ids = reached.map((r) => r.id);
    for (const id of ["language", "mode", "example", "run", "share", "docs-link", "cm-content", "clear-log", "env"]) assert.ok(ids.includes(id), `${id} in ${ids}`);
    assert.ok(ids.filter((id) => id === "SUMMARY").length >= 2, "the raw JSON and deploy panels");
    // The editor shows its caret; BODY: Tab past the last control leaves the page.
    const invisible = reached.filter((r) => !r.outline && !["cm-content", "BODY"].includes(r.id));
    assert.deepEqual(invisible, []);
    // From the top: Tab to the example picker, choose with the arrow keys, Tab to Run, Enter.
    await page.focus("#language");
    for (const id of ["mode", "example"]) {
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement.id), id);
    }
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.inputValue("#example"), "0");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement.id), "run");
    await run(() => page.keyboard.press("Enter"));
    assert.equal(await text("#stdout"), "hello from QuickJS");
    await assertContrast();
    await shot("17-keyboard");
  });

  it("one column under 700 px, on a phone and just under the breakpoint", async () => {
    await openPage("#language=python&mode=context&sandbox=pg-phone");
    await page.click("#deploy-box summary"); // its long lines scroll inside the panel
    for (const width of [390, 699]) {
      await page.setViewportSize({ width, height: 844 });
      const layout = await page.evaluate(() => ({
        main: getComputedStyle(document.querySelector("main")).gridTemplateColumns.split(" ").length,
        panels: getComputedStyle(document.getElementById("panels")).gridTemplateColumns.split(" ").length,
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        stacked: document.getElementById("output").getBoundingClientRect().top >= document.getElementById("editor-pane").getBoundingClientRect().bottom,
      }));
      assert.deepEqual(layout, { main: 1, panels: 1, overflow: 0, stacked: true }, `at ${width} px`);
    }
    await shot("18-phone-one-column");
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("stays usable under hostile output: 200 lines of 160 KiB, a 64 KiB JSON result, fuel", async () => {
    await openPage("#language=python&mode=stateless");
    await setCode('for i in range(200):\n    print("x" * 163840)');
    await run();
    assert.match(await text("#error"), /ExecutionLimitError: Output limit exceeded/);
    assert.ok((await page.locator("#stdout").textContent()).length <= 100_100);
    await page.selectOption("#language", "javascript");
    await setCode('({ text: "y".repeat(60000), list: Array.from({ length: 600 }, (_, i) => i) })');
    await run();
    assert.ok((await page.locator("#raw").textContent()).length > 60_000, `${await text("#status")} ${await text("#output")}`.slice(0, 500));
    assert.match(await text("#result .tree"), /list: Array\(600\)/);
    assert.ok((await page.locator("#result .tree .str").first().textContent()).length <= 2005, "a long string is clipped");
    await setCode("for (;;) {}");
    await run();
    assert.match(await text("#error"), /ExecutionLimitError/);
    await setCode("6 * 7");
    await run();
    assert.equal(await text("#result pre"), "42");
    assert.ok(await page.evaluate(() => document.querySelectorAll("*").length) < 3000, "the DOM stays small");
    await shot("19-hostile");
  });
});
