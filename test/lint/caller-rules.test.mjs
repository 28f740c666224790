// The caller's client (worker-shim/client.js) runs outside the core, yet states a few of its rules at call time: the
// request caps, each error code's status and errno, the sandbox id (docs/caller-client.md). They are rows of
// cpp/abi/abi.def, which the C++ is compiled from and the client reads through the generated abi.mjs. This lint fails
// when the client carries its own copy of one of them instead — a copy that would drift from the core's. It reads the
// source only: no build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLIENT = "worker-shim/client.js";

/** The rows of abi.def the client must read rather than copy. */
export function callerRules(def) {
  const constant = (name) => {
    const m = def.match(new RegExp(`^SW_ABI_CONST\\(${name}, (\\d+)\\)`, "m"));
    assert.ok(m, `abi.def has no ${name}`);
    return Number(m[1]);
  };
  const text = (name) => {
    const m = def.match(new RegExp(`^SW_ABI_TEXT\\(${name}, "((?:[^"\\\\]|\\\\.)*)"\\)`, "m"));
    assert.ok(m, `abi.def has no ${name}`);
    return JSON.parse(`"${m[1]}"`);
  };
  const codes = [...def.matchAll(/^SW_ABI_ERROR_CODE\((\w+), (\d+), "(\w*)"\)/gm)].map(([, code, status, errno]) => ({
    code,
    status: Number(status),
    errno,
  }));
  return {
    bytes: ["REQUEST_MAX_BYTES", "FILES_REQUEST_MAX_BYTES", "CODE_MAX_BYTES"].map(constant),
    reserved: text("SANDBOX_ID_RESERVED").split(" "),
    pattern: text("SANDBOX_ID_PATTERN"),
    codes,
  };
}

/** Where `source` (a client, comments and all) states one of `rules` itself; [] when it reads them all from abi.mjs. */
export function copiedRules(source, rules) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1"); // comments may name them
  const found = [];
  if (!/from\s+"\.\/generated\/abi\.mjs"/.test(code)) found.push("does not import the rules from ./generated/abi.mjs");
  for (const n of rules.bytes) {
    const forms = [String(n), n.toLocaleString("en-US").replaceAll(",", "_")];
    if (n % 1024 === 0) forms.push(`${n / 1024} * 1024`);
    if (n % 1048576 === 0) forms.push(`${n / 1048576} * 1024 * 1024`, `${n / 1048576} * 1048576`);
    for (const form of forms) if (code.includes(form)) found.push(`a request cap: ${form}`);
  }
  for (const name of rules.reserved) if (new RegExp(`["'\`]${name}["'\`]`).test(code)) found.push(`a reserved id: "${name}"`);
  if (code.includes(rules.pattern.slice(1, -1))) found.push(`the sandbox id pattern ${rules.pattern}`);
  for (const { code: name, status, errno } of rules.codes) {
    if (new RegExp(`\\b${name}\\s*:\\s*${status}\\b`).test(code)) found.push(`a code's status: ${name}: ${status}`);
    if (errno && new RegExp(`\\b${errno}\\s*:|["'\`]${errno}["'\`]`).test(code)) found.push(`an errno's code: ${errno}`);
  }
  return found;
}

test("the caller's client reads the request caps, error codes and the sandbox id rule from abi.def, copies none", () => {
  const rules = callerRules(readFileSync(path.join(ROOT, "cpp/abi/abi.def"), "utf8"));
  assert.equal(rules.codes.length >= 13, true, "abi.def lists every ErrorResponse code");
  assert.deepEqual(copiedRules(readFileSync(path.join(ROOT, CLIENT), "utf8"), rules), []);
});

test("the lint finds a copy: a hand-written cap, status table, errno table, reserved list or pattern is reported", () => {
  const rules = callerRules(readFileSync(path.join(ROOT, "cpp/abi/abi.def"), "utf8"));
  const copy = [
    'import { X } from "./generated/abi.mjs";',
    "export const MAX_REQUEST_BYTES = 96 * 1024; // 98304",
    "const S = { FILE_NOT_FOUND: 404 };",
    'const E = { ENOENT: "FILE_NOT_FOUND" };',
    'const R = new Set(["www", "api"]);',
    "const RE = /^[A-Za-z0-9._-]{1,63}$/;",
  ].join("\n");
  const found = copiedRules(copy, rules);
  for (const what of ["a request cap: 96 * 1024", "a code's status: FILE_NOT_FOUND: 404", "an errno's code: ENOENT",
    'a reserved id: "www"', "the sandbox id pattern"]) {
    assert.ok(found.some((f) => f.startsWith(what)), `${what} not reported in ${JSON.stringify(found)}`);
  }
  assert.ok(!found.includes("a request cap: 98304"), "a number in a comment is not a copy");
  assert.deepEqual(copiedRules("export const x = 1;", rules)[0], "does not import the rules from ./generated/abi.mjs");
});
