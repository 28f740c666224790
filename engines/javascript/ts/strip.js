// engines/javascript/ts/strip.js: the TypeScript stripper that runs inside the JavaScript engine (protocol §6.2).
// scripts/engines/javascript.sh bundles this with sucrase (esbuild, CommonJS, minified), wraps the bundle into a script
// whose completion value is `strip`, and compiles it to QuickJS bytecode embedded in engine.wasm. driver.c loads it
// only when a script fails to parse as JavaScript; it never touches globalThis.
// Types are removed, never checked; `enum` and `const enum` are lowered to objects (sucrase); value namespaces are
// lowered by lowerNamespaces below (sucrase erases every namespace as type-only); ES syntax is left as it is (no
// "use strict", no import transform, decorators as written), so the script's last expression stays its completion
// value. docs/typescript.md says what is lowered how, and why.
import { transform } from "sucrase";
import { parse } from "sucrase/dist/parser";
import { TokenType as T } from "sucrase/dist/parser/tokenizer/types";
import { ContextualKeyword as K } from "sucrase/dist/parser/tokenizer/keywords";
import { IdentifierRole as R } from "sucrase/dist/parser/tokenizer";

export function strip(code) {
  try {
    return transform(lowerNamespaces(code), { transforms: ["typescript"], disableESTransforms: true }).code;
  } catch (e) {
    // Whatever sucrase throws is a syntax error in the guest's code: SyntaxError with sucrase's message, and the
    // position (sucrase's loc: 1-based line, 0-based column) as the one traceback line.
    const err = new SyntaxError(e && e.message !== undefined ? String(e.message) : String(e));
    err.swTraceback = e && e.loc ? `    at <input>:${e.loc.line}:${e.loc.column + 1}` : "";
    throw err;
  }
}

// `namespace N { ... }` / `module N { ... }` holding values, as TypeScript emits them: `var N; (function (N) { ...
// })(N || (N = {}));`, nested ones as `(M = N.M || (N.M = {}))`, dotted names as nested blocks. Exported members
// become properties of the namespace object: functions at the top of the block (they are hoisted), const/class/enum/
// import-alias members at its end, let/var members as accessors at its end (reads and writes from outside see the
// live binding, as TypeScript's rewrite to `N.x` does). In a later block of the same namespace, a name exported by an
// earlier one is read as `N.x`, as TypeScript does (unless the block declares that name itself). A namespace with only
// types (or `declare`) is left to sucrase, which erases it. The output is still TypeScript (the bodies keep their
// types) and goes through sucrase as a whole; line numbers are kept (everything added goes on existing lines). Only
// code naming `namespace` or `module` pays. docs/typescript.md.
export function lowerNamespaces(code) {
  if (!/\b(?:namespace|module)\b/.test(code)) return code;
  return lowerScope(code, null, 0, code, new Map()).code;
}

const OPEN = new Set([T.braceL, T.dollarBraceL, T.parenL, T.bracketL]);
const CLOSE = new Set([T.braceR, T.parenR, T.bracketR]);
// Tokens after which an expression can end (ASI applies before a following name on a new line).
const ENDS_EXPR = new Set([T.name, T.num, T.bigint, T.decimal, T.string, T.regexp, T.parenR, T.bracketR, T.braceR,
  T.backQuote, T._this, T._true, T._false, T._null, T._super, T.preIncDec, T.postIncDec]);
const STATEMENT_KEYWORDS = new Set([T._export, T._import, T._const, T._let, T._var, T._function, T._class, T._if,
  T._for, T._while, T._do, T._return, T._throw, T._try, T._switch, T._enum, T._declare, T._abstract]);

// Rewrites the value namespaces among the statements of `code` (a program, or a namespace body whose namespace
// object is the parameter `ns`). `aliases`: names exported by earlier blocks of enclosing namespaces, to read as
// `qualifier.name`. Returns { code, instantiated, exported }: instantiated is whether the body holds any value,
// exported the names it puts on `ns`.
function lowerScope(code, ns, base, full, aliases) {
  const tokens = parse(code, false, true, false).tokens;
  const text = (t) => code.slice(t.start, t.end);
  const newlineBefore = (i) => i > 0 && /[\n\r\u2028\u2029]/.test(code.slice(tokens[i - 1].end, tokens[i].start));
  const isWord = (t, kw) => t && t.type === T.name && t.contextualKeyword === kw;
  const edits = []; // [start, end, replacement], in order
  const hoisted = []; // exported functions: `ns.f = f;` at the top
  const tail = []; // the other exports, at the end
  const declared = new Set(); // class/function/enum names of this scope (a namespace merging with one gets no `var`)
  const exportedNames = new Set(); // the names this body puts on `ns`
  const prior = new Map(); // namespace path ("A.B") -> the names its earlier blocks in this scope exported
  // Names this body declares anywhere shadow an alias (conservative: any declaration of the name, at any depth).
  const DECLARATION_ROLES = new Set([R.TopLevelDeclaration, R.FunctionScopedDeclaration, R.BlockScopedDeclaration,
    R.ObjectShorthandTopLevelDeclaration, R.ObjectShorthandFunctionScopedDeclaration,
    R.ObjectShorthandBlockScopedDeclaration, R.ImportDeclaration]);
  const local = new Set(tokens.filter((t) => t.type === T.name && DECLARATION_ROLES.has(t.identifierRole)).map(text));
  const visible = new Map([...aliases].filter(([name]) => !local.has(name)));
  let instantiated = false;
  let depth = 0;

  // Names bound by `const|let|var a = ..., b` starting at tokens[j] (the keyword). Destructuring is not supported.
  const bindings = (j) => {
    const names = [];
    let d = 0, expectName = true;
    for (let k = j + 1; k < tokens.length; k++) {
      const t = tokens[k];
      if (d === 0 && expectName) {
        if (t.type === T.name) { names.push(text(t)); expectName = false; continue; }
        if (t.type === T.braceL || t.type === T.bracketL) {
          throw Object.assign(new Error("exported destructuring declarations in a namespace are not supported"),
            { loc: locOf(full, base + t.start) });
        }
      }
      if (OPEN.has(t.type)) { d++; continue; }
      if (CLOSE.has(t.type)) { if (d === 0) break; d--; continue; }
      if (d !== 0) continue;
      if (t.type === T.semi || t.type === T.eof) break;
      if (t.type === T.comma) { expectName = true; continue; }
      if (newlineBefore(k) && (STATEMENT_KEYWORDS.has(t.type) ||
          (ENDS_EXPR.has(t.type) && t.type !== T.parenR && t.type !== T.bracketR && ENDS_EXPR.has(tokens[k - 1].type)))) break;
    }
    return names;
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === T.braceL || t.type === T.dollarBraceL) { depth++; if (!t.isType) instantiated = true; continue; }
    if (t.type === T.braceR) { depth--; continue; }
    if (t.type === T.name && !t.isType && visible.has(text(t)) &&
        (t.identifierRole === R.Access || t.identifierRole === R.ObjectShorthand)) {
      const q = `${visible.get(text(t))}.${text(t)}`;
      edits.push([t.start, t.end, t.identifierRole === R.ObjectShorthand ? `${text(t)}: ${q}` : q]);
    }
    if (depth !== 0) { if (!t.isType) instantiated = true; continue; }
    const next = tokens[i + 1];
    if ((t.type === T._class || t.type === T._function || isWord(t, K._enum) || t.type === T._enum) && next &&
        next.type === T.name && !t.isType) {
      declared.add(text(next));
    }
    // A namespace declaration: `[export] namespace|module A.B.C {`, not `declare`, not `module "name"`.
    if ((isWord(t, K._namespace) || isWord(t, K._module)) && t.isType && next && next.type === T.name) {
      const exported = i > 0 && tokens[i - 1].type === T._export;
      const before = tokens[exported ? i - 2 : i - 1];
      if (before && before.type === T._declare) continue;
      const names = [text(next)];
      let k = i + 2;
      while (tokens[k] && tokens[k].type === T.dot && tokens[k + 1] && tokens[k + 1].type === T.name) {
        names.push(text(tokens[k + 1]));
        k += 2;
      }
      if (!tokens[k] || tokens[k].type !== T.braceL) continue;
      let m = k, d = 0;
      for (; m < tokens.length; m++) {
        if (tokens[m].type === T.braceL || tokens[m].type === T.dollarBraceL) d++;
        else if (tokens[m].type === T.braceR && --d === 0) break;
      }
      const innerName = names[names.length - 1], key = names.join(".");
      const innerAliases = new Map(visible);
      for (const name of prior.get(key) ?? []) innerAliases.set(name, innerName);
      const inner = lowerScope(code.slice(tokens[k].end, tokens[m].start), innerName, base + tokens[k].end, full,
        innerAliases);
      if (!inner.instantiated) { i = m; continue; }
      prior.set(key, new Set([...(prior.get(key) ?? []), ...inner.exported]));
      if (exported && ns !== null) exportedNames.add(names[0]);
      // Innermost block first, then each enclosing name around it.
      let out = inner.code;
      for (let n = names.length - 1; n >= 0; n--) {
        const name = names[n];
        const parent = n > 0 ? names[n - 1] : exported ? ns : null;
        const arg = parent ? `${name} = ${parent}.${name} || (${parent}.${name} = {})` : `${name} || (${name} = {})`;
        const decl = n > 0 || ns !== null ? `let ${name}; ` : declared.has(name) ? "" : `var ${name}; `;
        out = `${decl}(function (${name}) {${out}})(${arg});`;
      }
      edits.push([tokens[exported ? i - 1 : i].start, tokens[m].end, out]);
      instantiated = true;
      i = m;
      continue;
    }
    if (t.type !== T.semi && t.type !== T.eof && t.type !== T._export && !t.isType) instantiated = true;
    if (t.type !== T._export || ns === null) continue;
    // An exported member of the namespace `ns`: drop `export`, assign the binding to the namespace object.
    edits.push([t.start, t.end, ""]);
    if (!next || next.isType) continue; // interface, type, declare: erased by sucrase
    const after = tokens[i + 2];
    const assign = (name) => { exportedNames.add(name); tail.push(`${ns}.${name} = ${name};`); };
    if (next.type === T._function || (isWord(next, K._async) && after && after.type === T._function)) {
      let f = next.type === T._function ? i + 2 : i + 3;
      if (tokens[f] && tokens[f].type === T.star) f++;
      if (tokens[f] && tokens[f].type === T.name) {
        exportedNames.add(text(tokens[f]));
        hoisted.push(`${ns}.${text(tokens[f])} = ${text(tokens[f])};`);
      }
    } else if (next.type === T._class && after && after.type === T.name) {
      assign(text(after));
    } else if ((next.type === T._abstract || isWord(next, K._abstract)) && after && after.type === T._class) {
      if (tokens[i + 3] && tokens[i + 3].type === T.name) assign(text(tokens[i + 3]));
    } else if ((next.type === T._enum || isWord(next, K._enum)) && after && after.type === T.name) {
      assign(text(after));
    } else if (next.type === T._const && after && (after.type === T._enum || isWord(after, K._enum))) {
      if (tokens[i + 3] && tokens[i + 3].type === T.name) assign(text(tokens[i + 3]));
    } else if (next.type === T._import && after && after.type === T.name) {
      assign(text(after));
    } else if (next.type === T._const) {
      bindings(i + 1).forEach(assign);
    } else if (next.type === T._let || next.type === T._var) {
      for (const name of bindings(i + 1)) {
        exportedNames.add(name);
        tail.push(`Object.defineProperty(${ns}, ${JSON.stringify(name)}, { get: function () { return ${name}; }, ` +
          `set: function (_${name}) { ${name} = _${name}; }, enumerable: true, configurable: true });`);
      }
    }
  }

  let out = "", at = 0;
  for (const [start, end, repl] of edits) { out += code.slice(at, start) + repl; at = end; }
  out += code.slice(at);
  if (ns !== null) out = hoisted.join(" ") + out + (tail.length ? ";" + tail.join(" ") + " " : "");
  return { code: out, instantiated, exported: exportedNames };
}

// sucrase's error position convention (1-based line, 0-based column) for an offset into code.
function locOf(code, pos) {
  const before = code.slice(0, pos).split("\n");
  return { line: before.length, column: before[before.length - 1].length };
}
