// BigDecimal in the Ruby runtime Worker (workerd through Miniflare): our engines/ruby/lib/bigdecimal.rb, written in
// Ruby because ruby.wasm links no bigdecimal extension (engines/ruby/README.md, "BigDecimal").
//
// 1. Every line of test/integration/fixtures/bigdecimal-probe.rb (parsing, to_d, to_s formats, conversions,
//    arithmetic with Integer/Float/Rational operands, div/modulo/remainder, powers, rounding in every mode, the mode
//    and limit switches, comparisons, hashing, Marshal) is compared with what the host's ruby prints with the real,
//    C bigdecimal (Debian bookworm's ruby3.1, bigdecimal 3.1.1): the same values and the same error messages.
// 2. Where bigdecimal 4 (the version Ruby 4.0 bundles) differs from 3.1, the probe has no line; those rules are
//    checked here with their values: `/` to max(operand precisions) + 16 significant digits and at least 32, divmod's
//    Integer quotient, to_s("3F") grouping the integer part from the decimal point, no `precs`; BigMath's results to
//    the digits asked for (constants checked against their known decimal expansions).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { useLanguageRuntime } from "./language-runtime.mjs";

const rt = useLanguageRuntime("ruby");

const probe = readFileSync(new URL("./fixtures/bigdecimal-probe.rb", import.meta.url), "utf8");
// The header (requires and the `t` helper) and then one request per part: the output cap is 200 lines.
const [header, ...parts] = probe.split(/^#--$/m);

const hostRuby = (program) =>
  execFileSync("ruby3.1", ["-e", program], { env: { PATH: process.env.PATH, LC_ALL: "C.UTF-8" }, encoding: "utf8" });

const lines = (out) => out.split("\n").filter(Boolean);

const sandboxLines = async (program) => {
  const r = await rt.exec(program);
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.logs.stdout;
};

describe("BigDecimal (ours, in Ruby) against the C bigdecimal", () => {
  it("the host's ruby has the C bigdecimal this compares with", () => {
    assert.equal(hostRuby('require "bigdecimal"; print BigDecimal::VERSION, " ", $LOADED_FEATURES.grep(/bigdecimal\\.so/).size'),
      "3.1.1 1");
  });

  parts.forEach((part, i) => {
    it(`probe part ${i + 1}: every line as the C bigdecimal prints it`, async () => {
      const program = header + part;
      const expected = lines(hostRuby(program));
      assert.ok(expected.length > 100, `the probe part prints ${expected.length} lines`);
      const got = await sandboxLines(program);
      assert.equal(got.length, expected.length, "line count");
      for (let k = 0; k < expected.length; k++) assert.equal(got[k], expected[k], `line ${k + 1}`);
    });
  });
});

describe("BigDecimal: bigdecimal 4's rules, by value", () => {
  const cases = [
    // `/`: max(precision of the operands) + 16 digits, at least 32, rounded half up (3.1 gave 1/3 36 digits).
    ['BigDecimal(1) / 3', "0.33333333333333333333333333333333e0"],
    ['BigDecimal("2") / 3', "0.66666666666666666666666666666667e0"],
    ['BigDecimal("1234567890.123456789") / 7', "0.17636684144620811271428571428571429e9"],
    ['BigDecimal("10").div(3, 0)', "0.33333333333333333333333333333333e1"],
    ['BigDecimal("1") / 3.0', "0.33333333333333333333333333333333e0"],
    ['BigDecimal("1").quo(3)', "0.33333333333333333333333333333333e0"],
    ['BigDecimal("1") / 8', "0.125e0"],
    // divmod: the quotient is an Integer, as Float#divmod's (3.1: a BigDecimal).
    ['BigDecimal("7").divmod(2)', "[3, 0.1e1]"],
    ['BigDecimal("-7.5").divmod(2)', "[-4, 0.5e0]"],
    ['BigDecimal("7.5").divmod(BigDecimal("-0.7"))', "[-11, -0.2e0]"],
    // to_s("nF") groups the integer part from the decimal point (bigdecimal 3.1.5 and later).
    ['BigDecimal("1234567.1234").to_s("3F")', '"1 234 567.123 4"'],
    ['BigDecimal("-1234567.12345").to_s("+3F")', '"-1 234 567.123 45"'],
    ['BigDecimal("1.5").respond_to?(:precs)', "false"],
    // sqrt(n) and BigMath: n significant digits, rounded.
    ['BigDecimal("2").sqrt(20)', "0.14142135623730950488e1"],
    ['BigDecimal("2").sqrt(5)', "0.14142e1"],
    ['BigMath.sqrt(BigDecimal("3"), 25)', "0.1732050807568877293527446e1"],
    ['BigMath.PI(30)', "0.314159265358979323846264338328e1"],
    ['BigMath.E(25)', "0.2718281828459045235360287e1"],
    ['BigMath.exp(BigDecimal("1"), 30)', "0.271828182845904523536028747135e1"],
    ['BigMath.exp(BigDecimal("-2.5"), 20)', "0.8208499862389879517e-1"],
    ['BigMath.log(BigDecimal("10"), 30)', "0.230258509299404568401799145468e1"],
    ['BigMath.log(BigDecimal("2"), 30)', "0.693147180559945309417232121458e0"],
    ['BigMath.sin(BigMath.PI(40) / 6, 20)', "0.5e0"],
    ['BigMath.cos(BigDecimal("1"), 20)', "0.5403023058681397174e0"],
    ['BigMath.atan(BigDecimal("1"), 30) * 4', "0.314159265358979323846264338328e1"],
    ['BigDecimal("2") ** BigDecimal("0.5")', "0.14142135623730950488016887242097e1"],
    ['BigMath.log(0, 10)', "Math::DomainError: Zero or negative argument for log"],
    ['BigMath.exp(1, 0)', "ArgumentError: Zero or negative precision for exp"],
  ];
  it("division precision, divmod, grouping, sqrt and BigMath", async () => {
    const program = `require "bigdecimal"; require "bigdecimal/util"; require "bigdecimal/math"
def t(s)
  puts(begin; eval(s).inspect; rescue StandardError => e; "#{e.class}: #{e.message}"; end)
end
${cases.map(([expr]) => `t ${JSON.stringify(expr)}`).join("\n")}`;
    const got = await sandboxLines(program);
    assert.deepEqual(got, cases.map(([, value]) => value));
  });

  it("a money calculation users write: prices, tax, rounding half even", async () => {
    const r = await rt.exec(`require "bigdecimal"; require "bigdecimal/util"
prices = %w[19.99 5.49 0.10].map(&:to_d)
subtotal = prices.sum * 3
tax = (subtotal * "0.0825".to_d).round(2, half: :even)
[subtotal.to_s("F"), tax.to_s("F"), (subtotal + tax).to_digits, (0.1 + 0.2 == 0.3), ("0.1".to_d + "0.2".to_d == "0.3".to_d)]`);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results, [{ json: ["76.74", "6.33", "83.07", false, true] }]);
  });

  it("a number too large for memory ends inside a 200 result, and the next request works", async () => {
    const r = await rt.exec('require "bigdecimal"; (BigDecimal("1e900000000") + 1).to_s.size');
    // Ruby 4.0 refuses the Integer power behind the alignment ("exponent is too large"); a bigger one would run out
    // of memory: either is the guest's error.
    assert.ok(["ArgumentError", "NoMemoryError", "ExecutionLimitError"].includes(r.error?.name), JSON.stringify(r.error));
    assert.deepEqual((await rt.exec('require "bigdecimal"; BigDecimal("1e999999999999")')).results, [{ text: "Infinity" }]);
    assert.deepEqual((await rt.exec("1 + 1")).results, [{ text: "2" }]);
  });
});
