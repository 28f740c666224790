// Runs a language's Playground example (engines/<id>/examples.json) through the gateway as the page does: stateless
// with POST /execute/<language>, in a code context with POST /languages/<language>/sandboxes/<id>/execute (`runs`
// times, in a fresh context), with the example's envVars. Checks `expect` against the last answer; returns the problems.
import { isDeepStrictEqual } from "node:util";

export async function runExample(fetch, language, example, sandboxId) {
  const body = { code: example.code, ...(example.envVars ? { envVars: example.envVars } : {}) };
  let answer;
  for (let i = 0; i < (example.runs ?? 1); i++) {
    const path = example.mode === "context"
      ? `/languages/${language}/sandboxes/${sandboxId}/execute`
      : `/execute/${language}`;
    const response = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    answer = { status: response.status, json: await response.json() };
  }
  return { answer, problems: checkExample(example, answer) };
}

export function checkExample(example, { status, json }) {
  const problems = [];
  const want = example.expect;
  if (status !== 200) return [`HTTP ${status}: ${JSON.stringify(json).slice(0, 300)}`];
  const first = json.results?.[0];
  if ("error" in want) {
    if (json.error?.name !== want.error) problems.push(`error ${JSON.stringify(json.error)} is not ${want.error}`);
  } else if (json.error) problems.push(`unexpected error ${json.error.name}: ${json.error.message}`);
  if ("text" in want && first?.text !== want.text) problems.push(`text ${JSON.stringify(first)} is not ${JSON.stringify(want.text)}`);
  if ("json" in want && !isDeepStrictEqual(first?.json, want.json)) problems.push(`json ${JSON.stringify(first)} is not ${JSON.stringify(want.json)}`);
  if ("stdout" in want && !isDeepStrictEqual(json.logs?.stdout, want.stdout)) problems.push(`stdout ${JSON.stringify(json.logs?.stdout)} is not ${JSON.stringify(want.stdout)}`);
  return problems;
}
