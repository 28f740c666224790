// cpp/sandbox: env vars: strict validation (protocol §7.3) and layering (protocol §7.6).
#include "internal.h"

#include <map>

namespace sw::sandbox {

bool isBindingName(std::string_view name) { return server::isValidEnvKey(name); }

// protocol §7.3: strict env validation; `allowNull` for /execute and /env.
std::optional<std::string> readStrictEnv(const Value& v, bool allowNull, EnvEntries& out) {
  if (!v.isObject()) return "envVars must be an object";
  out.clear();
  for (const auto& [key, value] : v.members()) {
    if (!server::isValidEnvKey(key)) return "Invalid envVars key: " + key;
    if (value.isNull() && allowNull) {
      out.emplace_back(key, std::nullopt);
      continue;
    }
    if (!value.isString()) return "envVars values must be strings";
    out.emplace_back(key, value.asString());
  }
  return std::nullopt;
}

// Sets (or, for nullopt, removes) `key` keeping JavaScript object order. Indexed, so layering n keys over m costs
// O((n + m) log m), not O(n * m): a 96 KiB env body holds ~10,000 keys.
void layer(EnvEntries& into, const EnvEntries& over) {
  std::map<std::string, std::size_t, std::less<>> at;  // owning keys: `into` may reallocate below
  for (std::size_t i = 0; i < into.size(); ++i) at.emplace(into[i].first, i);
  std::vector<bool> removed(into.size(), false);
  bool anyRemoved = false;
  for (const auto& entry : over) {
    auto it = at.find(entry.first);
    if (!entry.second) {
      if (it != at.end() && !removed[it->second]) {
        removed[it->second] = true;
        anyRemoved = true;
      }
    } else if (it != at.end() && !removed[it->second]) {
      into[it->second].second = entry.second;
    } else {
      // A key removed earlier in this same layer and set again goes to the end, as delete + set does in JavaScript.
      if (it != at.end()) at.erase(it);
      into.emplace_back(entry.first, entry.second);
      removed.push_back(false);
      at.emplace(into.back().first, into.size() - 1);
    }
  }
  if (!anyRemoved) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < into.size(); ++i) {
    if (removed[i]) continue;
    if (kept != i) into[kept] = std::move(into[i]);  // never a self-move: it would empty the strings
    ++kept;
  }
  into.resize(kept);
}

std::string envJson(const EnvEntries& env) {
  std::string out;
  Writer w(out);
  w.beginObject();
  for (const auto& [key, value] : env)
    if (value) w.key(key).string(*value);
  w.endObject();
  return out;
}

EnvEntries envFromJson(std::string_view text) {
  EnvEntries out;
  auto parsed = json::parseCopy(text);
  if (!parsed.ok() || !parsed.value.isObject()) return out;
  for (const auto& [key, value] : parsed.value.members())
    if (value.isString()) out.emplace_back(key, value.asString());
  return out;
}

}  // namespace sw::sandbox
