// The gateway's table of languages for the unit tests: five rows like the ones scripts/languages.mjs generates from
// the manifests into the gateway config's PLAYGROUND_LANGUAGES var (the integration tests run the generated config).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gateway/gateway.h"
#include "json/json.h"

namespace gateway_test {

inline std::string languagesJson() {
  struct Row {
    const char *id, *name, *binding;
    double fuel, memory;
  };
  const Row rows[] = {{"javascript", "JavaScript", "JAVASCRIPT", 50'000'000, 67'108'864},
                      {"python", "Python", "PYTHON", 100'000'000, 67'108'864},
                      {"perl", "Perl", "PERL", 10'000'000, 67'108'864},
                      {"ruby", "Ruby", "RUBY", 30'000'000, 100'663'296},
                      {"lua", "Lua", "LUA", 50'000'000, 67'108'864}};
  sw::json::Value list = sw::json::Value::array();
  for (const Row& r : rows) {
    sw::json::Value row = sw::json::Value::object();
    row.set("id", sw::json::Value::string(r.id));
    row.set("name", sw::json::Value::string(r.name));
    row.set("binding", sw::json::Value::string(r.binding));
    row.set("package", sw::json::Value::string(std::string("@sandbox-workers/") + r.id));
    row.set("fuel", sw::json::Value::number(r.fuel, std::to_string(int64_t(r.fuel))));
    row.set("memoryBytes", sw::json::Value::number(r.memory, std::to_string(int64_t(r.memory))));
    if (std::string_view(r.id) == "javascript") row.set("default", sw::json::Value::boolean(true));
    list.push(std::move(row));
  }
  return sw::json::stringify(list);
}

// `varsJson` (the gateway Worker's string vars) with PLAYGROUND_LANGUAGES added.
inline std::string withLanguages(std::string_view varsJson = "{}") {
  auto parsed = sw::json::parseCopy(varsJson);
  sw::json::Value vars = parsed.ok() ? std::move(parsed.value) : sw::json::Value::object();
  vars.set("PLAYGROUND_LANGUAGES", sw::json::Value::string(languagesJson()));
  return sw::json::stringify(vars);
}

// An Exchange configured with the five languages and no limits (per client or in total).
struct Gateway : sw::gateway::Exchange {
  Gateway() {
    configure(withLanguages(
        R"({"PLAYGROUND_RATE_LIMIT":"0","PLAYGROUND_MAX_SANDBOXES":"0","PLAYGROUND_MAX_TOTAL_SANDBOXES":"0"})"));
  }
};

}  // namespace gateway_test
