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
import { startPlayground, LANGUAGES, buildPage } from "./harness.mjs";

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
    assert.match(await text(".cm-content"), /from the page/); // the code typed is kept: no sample replaces it
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
});
