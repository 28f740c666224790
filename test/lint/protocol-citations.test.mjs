// Lint: every "protocol §N" citation in the repository names a section (and every "item N" a checklist item) that
// exists in docs/protocol/, every Markdown link into docs/protocol/ reaches an existing page and heading, and nothing
// cites a document a clone does not hold: the retired spec file, the user's seed documents by number, or the notes
// kept beside the repository (toolchain, engine and design notes). Run by scripts/test.sh; alone:
//   node --test test/lint/protocol-citations.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PROTOCOL_DIR = "docs/protocol";
const SELF = "test/lint/protocol-citations.test.mjs";

// GitHub's heading anchors: lower-case, punctuation other than '-' and '_' dropped, spaces to '-'.
export function slug(heading) {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

// What docs/protocol/ defines: section numbers, checklist items (item -> its §10.K), §11 items, each page's anchors.
export function loadProtocol(pages) {
  const sections = new Set();
  const items10 = new Map();
  const items11 = new Set();
  const anchors = new Map();
  const problems = [];
  for (const [page, text] of pages) {
    const pageAnchors = new Set();
    anchors.set(page, pageAnchors);
    let section = null;
    for (const line of text.split("\n")) {
      const h = /^(#{1,6}) (.*)$/.exec(line);
      if (h) {
        pageAnchors.add(slug(h[2]));
        const n = /^(\d+(?:\.\d+)?)\.? /.exec(h[2]);
        if (n) {
          if (sections.has(n[1])) problems.push(`${page}: section ${n[1]} defined twice`);
          sections.add(n[1]);
          section = n[1];
        }
        continue;
      }
      const item = /^(\d+)\. /.exec(line);
      if (!item || section === null) continue;
      const number = Number(item[1]);
      if (section.startsWith("10.")) {
        if (items10.has(number)) problems.push(`${page}: checklist item ${number} defined twice`);
        items10.set(number, section);
      } else if (section === "11") {
        items11.add(number);
      }
    }
  }
  return { sections, items10, items11, anchors, problems };
}

const SECTION = String.raw`(\d+(?:\.\d+)?)`;
const RANGE = new RegExp(String.raw`^\s*[-–]\s*§?` + SECTION);
const ITEMS = /^(?:'s)?\s+items?\s+(\d+(?:\s*[-–]\s*\d+)?(?:\s*(?:,|and)\s*\d+(?:\s*[-–]\s*\d+)?)*)/;
const CITATION = new RegExp(String.raw`\bprotocol §` + SECTION, "gi");
const BARE = new RegExp("§" + SECTION, "g");
// A bare § after a citation belongs to another document when one is named in between.
const OTHER_DOCUMENT = /\.md\b|ECMA|TOOLCHAIN|NOTES|RFC/;
// The retired spec file, cited by section, by number, or by name (assembled so that `git grep` for the old citations
// does not find this file).
const OLD = "SP" + "EC";
const RETIRED = new RegExp(
  [`\\b${OLD}\\s*§`, `\\b${OLD}\\s+\\d+\\.\\d`, `\\b${OLD}\\.md\\b`, `shared/${OLD}`].join("|"),
);
// Documents outside the repository (assembled for the same reason): the seeds by number (the word and a three-digit
// number, a list of them, their file names) and the notes beside the repository. Say the fact in words, or cite docs/
// or docs/protocol/.
const SEED = "se" + "ed";
const NOTES = ["TOOL" + "CHAIN.md", "ENG" + "INES.md", "DESIGN" + "-NOTES"];
const OUTSIDE = [
  [
    new RegExp(String.raw`\b${SEED}s?\s+(?:#|no\.?\s*)?\d{3}\b|\b0\d\d_[0-9a-f]{16}\b|shared/${SEED}s\b`, "i"),
    "cites a seed document by number (not in the repository): cite \"protocol §N\" or say it in words",
  ],
  [
    new RegExp(NOTES.map((n) => n.replace(".", "\\.")).join("|")),
    "cites notes that are not in the repository: say the fact in words, or point to the docs/ page that says it",
  ],
];

// Checks one reference at `text[at]` = section `sec`, followed by an optional range and item list; returns the index
// just past what it consumed.
function checkReference(text, at, sec, protocol, report) {
  let end = at;
  const check = (s) => {
    if (!protocol.sections.has(s)) report(`§${s} is not a section of docs/protocol/`);
  };
  check(sec);
  const range = RANGE.exec(text.slice(end));
  if (range) {
    check(range[1]);
    end += range[0].length;
  }
  const items = ITEMS.exec(text.slice(end));
  if (items) {
    end += items[0].length;
    const numbers = items[1].split(/\s*(?:,|and|[-–])\s*/).map(Number);
    for (const n of numbers) {
      if (sec === "11") {
        if (!protocol.items11.has(n)) report(`§11 has no item ${n}`);
      } else if (sec === "10" || sec.startsWith("10.")) {
        const home = protocol.items10.get(n);
        if (home === undefined) report(`the checklist (§10) has no item ${n}`);
        else if (sec !== "10" && home !== sec) report(`item ${n} is in §${home}, not §${sec}`);
      } else {
        report(`"items" follow §${sec}; checklist items belong to §10 or §11`);
      }
    }
  }
  return end;
}

// Problems of one file's text: [line, message] pairs. `file` is relative to the repository root.
export function lintText(file, text, protocol) {
  const out = [];
  const isMarkdown = file.endsWith(".md");
  text.split("\n").forEach((raw, index) => {
    const report = (message) => out.push([index + 1, message]);
    if (RETIRED.test(raw)) report("cites the retired spec file: cite docs/protocol/ as \"protocol §N\"");
    for (const [pattern, message] of OUTSIDE) if (pattern.test(raw)) report(message);
    let line = raw;
    if (isMarkdown) {
      // Links into docs/protocol/ must reach a page and one of its headings (code spans are not links).
      const outsideCode = raw.replace(/`[^`]*`/g, "");
      for (const m of outsideCode.matchAll(/\]\(([^)\s]+)\)/g)) {
        const [target, anchor] = m[1].split("#");
        if (/^[a-z]+:/.test(target) || target === "") continue;
        const path = normalize(join(dirname(file), target));
        if (!path.startsWith(PROTOCOL_DIR + "/")) continue;
        const page = path.slice(PROTOCOL_DIR.length + 1);
        const anchors = protocol.anchors.get(page);
        if (!anchors) report(`link to ${path}, which does not exist`);
        else if (anchor !== undefined && !anchors.has(anchor)) report(`link to ${path}#${anchor}: no such heading`);
      }
      line = raw.replace(/\[([^\]]*)\]\([^)\s]*\)/g, "$1");
    }
    // Inside docs/protocol/ every § is one of its own sections.
    if (file.startsWith(PROTOCOL_DIR + "/")) {
      for (const m of line.matchAll(BARE)) checkReference(line, m.index + m[0].length, m[1], protocol, report);
      return;
    }
    for (const m of line.matchAll(CITATION)) {
      let end = checkReference(line, m.index + m[0].length, m[1], protocol, report);
      // Bare § after it on the same line continue the citation ("protocol §2.7, the §2.5 steps 1-3").
      for (const b of line.slice(end).matchAll(BARE)) {
        const at = end + b.index;
        const between = line.slice(end, at);
        if (OTHER_DOCUMENT.test(between) || /protocol $/i.test(line.slice(0, at))) break;
        end = checkReference(line, at + b[0].length, b[1], protocol, report);
      }
    }
  });
  return out;
}

function readProtocol() {
  const dir = join(ROOT, PROTOCOL_DIR);
  const pages = readdirSync(dir).filter((f) => f.endsWith(".md")).map((f) => [f, readFileSync(join(dir, f), "utf8")]);
  return loadProtocol(pages);
}

const BINARY = /\.(wasm|png|jpe?g|gif|ico|bin|tar|gz|zip|pdf|woff2?|sqlite|db)$/i;

function repositoryFiles() {
  const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  // This file is left out: its test cases are made-up citations on purpose.
  // Regular files only: not a file deleted from the worktree, not a symlinked directory.
  const isFile = (f) => statSync(join(ROOT, f), { throwIfNoEntry: false })?.isFile() ?? false;
  return out.split("\0").filter((f) => f && f !== SELF && !BINARY.test(f) && isFile(f));
}

test("docs/protocol/ defines each section once and checklist items 1-190 in order", () => {
  const protocol = readProtocol();
  assert.deepEqual(protocol.problems, []);
  for (const s of ["0", "1", "2.1", "2.9", "3.8", "4.9", "5.6", "6.5", "7.12", "8", "9", "10.9", "11"]) {
    assert.ok(protocol.sections.has(s), `§${s} missing`);
  }
  assert.deepEqual([...protocol.items10.keys()], Array.from({ length: 190 }, (_, i) => i + 1));
  assert.deepEqual([...protocol.items11].sort((a, b) => a - b), Array.from({ length: 23 }, (_, i) => i + 1));
});

test("the lint reports made-up citations, wrong items, broken links and the retired file", () => {
  const protocol = readProtocol();
  const lint = (file, text) => lintText(file, text, protocol).map(([, m]) => m);
  assert.deepEqual(lint("a.cpp", "// protocol §2.3 step 7, protocol §10.4 item 95, protocol §11 item 7"), []);
  assert.deepEqual(lint("a.cpp", "// protocol §2.5–2.9 and §4.4; protocol §10.5 items 106-114 and 127"), []);
  assert.deepEqual(lint("a.cpp", "// protocol §12.1"), ["§12.1 is not a section of docs/protocol/"]);
  assert.deepEqual(lint("a.cpp", "// protocol §2.3, §2.99"), ["§2.99 is not a section of docs/protocol/"]);
  assert.deepEqual(lint("a.cpp", "// protocol §10.3 item 95"), ["item 95 is in §10.4, not §10.3"]);
  assert.deepEqual(lint("a.cpp", "// protocol §10 item 191"), ["the checklist (§10) has no item 191"]);
  assert.deepEqual(lint("a.cpp", "// protocol §11 item 24"), ["§11 has no item 24"]);
  assert.deepEqual(lint("a.cpp", "// protocol §2.7, see docs/security.md §3.3"), []);
  assert.deepEqual(lint("docs/protocol/x.md", "after reconciliation (§2.7 step 13), see §4.10"), [
    "§4.10 is not a section of docs/protocol/",
  ]);
  assert.equal(lint("a.cpp", `// ${OLD} §5.5`).length, 1);
  assert.equal(lint("a.cpp", `// ${OLD} 5.5`).length, 1);
  assert.equal(lint("README.md", `see ../shared/${OLD}.md`).length, 1);
  assert.deepEqual(lint("docs/x.md", "[protocol §5.5](protocol/5-engines-and-host.md#55-the-fuel-meter)"), []);
  assert.deepEqual(lint("docs/x.md", "[protocol §5.5](protocol/5-engines-and-host.md#55-fuel)"), [
    "link to docs/protocol/5-engines-and-host.md#55-fuel: no such heading",
  ]);
  assert.deepEqual(lint("docs/x.md", "[protocol §5.5](protocol/5-engine.md)"), [
    "link to docs/protocol/5-engine.md, which does not exist",
  ]);
});

test("the lint reports citations of documents outside the repository", () => {
  const protocol = readProtocol();
  const lint = (file, text) => lintText(file, text, protocol).map(([, m]) => m);
  const [seedMessage, notesMessage] = OUTSIDE.map(([, message]) => message);
  for (const text of [
    `// the Engine contract (${SEED} 000)`,
    `(${SEED} 004's name; sandbox-<runtime>)`,
    `what ${SEED}s 000, 001 and 002 call`,
    `${SEED.toUpperCase()} #002: snapshots`,
    `see 002_f66860620132ca64.txt`,
    `/work/shared/${SEED}s/README.md`,
  ]) {
    assert.deepEqual(lint("a.mjs", text), [seedMessage], text);
  }
  for (const note of NOTES) {
    assert.deepEqual(lint("a.sh", `# link at -O0 (${note} §2)`), [notesMessage], note);
    assert.deepEqual(lint("docs/x.md", `the recursion cap (${note} item 8)`), [notesMessage], note);
  }
  // Words about the reference product and fuzzing seeds are no citation.
  for (const text of [
    "the seed's client",
    "the seeds' quick starts (protocol §7.1)",
    "the fuzz seeds under build/fuzz/seeds/wasm",
    `a ${SEED} of 42`,
    "const ENGINES = { javascript };",
    "docs/adding-an-engine.md, \"Toolchain facts\"",
  ]) {
    assert.deepEqual(lint("a.mjs", text), [], text);
  }
});

test("every protocol citation in the repository exists in docs/protocol/, and none names an outside document", () => {
  const protocol = readProtocol();
  const problems = [];
  for (const file of repositoryFiles()) {
    const text = readFileSync(join(ROOT, file), "utf8");
    if (text.includes("\0")) continue;
    for (const [line, message] of lintText(file, text, protocol)) problems.push(`${file}:${line}: ${message}`);
  }
  assert.deepEqual(problems, [], `\n${problems.join("\n")}\n`);
});
