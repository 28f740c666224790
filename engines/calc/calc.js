// calc: a tiny arithmetic language, the worked example of a stateless Engine (protocol §5.7).
//   expr   := term (("+" | "-") term)*
//   term   := unary (("*" | "/" | "%") unary)*
//   unary  := ("+" | "-") unary | power
//   power  := atom ("**" unary)?
//   atom   := number | NAME | "(" expr ")"
// NAME reads an environment variable (from the request's envVars) as a number.

export class CalcError extends Error {
  constructor(name, message) {
    super(message);
    this.name = name;
  }
}

function tokenize(source) {
  const tokens = [];
  const re = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/%()]))/y;
  let pos = 0;
  while (pos < source.length) {
    if (/^\s*$/.test(source.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(source);
    if (!m) throw new CalcError("SyntaxError", `Unexpected character '${source.slice(pos).trim()[0]}'`);
    pos = re.lastIndex;
    if (m[1] !== undefined) tokens.push({ kind: "number", value: Number(m[1]) });
    else if (m[2] !== undefined) tokens.push({ kind: "name", value: m[2] });
    else tokens.push({ kind: "op", value: m[3] });
  }
  return tokens;
}

export function evaluate(source, env = {}) {
  const tokens = tokenize(source);
  let i = 0;
  const peek = () => tokens[i];
  const take = (op) => (peek()?.kind === "op" && peek().value === op ? (i++, true) : false);

  function expr() {
    let v = term();
    for (;;) {
      if (take("+")) v += term();
      else if (take("-")) v -= term();
      else return v;
    }
  }
  function term() {
    let v = unary();
    for (;;) {
      if (take("*")) v *= unary();
      else if (take("/")) v /= unary();
      else if (take("%")) v %= unary();
      else return v;
    }
  }
  function unary() {
    if (take("-")) return -unary();
    if (take("+")) return +unary();
    return power();
  }
  function power() {
    const base = atom();
    return take("**") ? base ** unary() : base;
  }
  function atom() {
    const t = tokens[i++];
    if (!t) throw new CalcError("SyntaxError", "Unexpected end of input");
    if (t.kind === "number") return t.value;
    if (t.kind === "name") {
      if (!Object.hasOwn(env, t.value)) throw new CalcError("ReferenceError", `${t.value} is not defined`);
      return Number(env[t.value]);
    }
    if (t.value === "(") {
      const v = expr();
      if (!take(")")) throw new CalcError("SyntaxError", "Expected ')'");
      return v;
    }
    throw new CalcError("SyntaxError", `Unexpected token '${t.value}'`);
  }

  const value = expr();
  if (i < tokens.length) throw new CalcError("SyntaxError", `Unexpected token '${tokens[i].value}'`);
  return value;
}
