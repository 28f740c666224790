// cpp/sandbox: what the Sandbox's source files share and nothing outside them reads: the stored rows (protocol §7.10),
// what an exchange carries across its asynchronous steps, and the env helpers (protocol §7.6).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../json/json.h"
#include "sandbox.h"

namespace sw::sandbox {

using durable::SqlArg;
using durable::SqlRow;
using durable::SqlValue;
using json::member;
using json::numberOr;
using json::stringOr;
using json::Value;
using json::Writer;

// An env map with JavaScript object order; nullopt values (protocol §7.6 `null`) remove a key when layered.
using EnvEntries = std::vector<std::pair<std::string, std::optional<std::string>>>;

// env.cpp (protocol §7.3, §7.6)
bool isBindingName(std::string_view name);
std::optional<std::string> readStrictEnv(const Value& v, bool allowNull, EnvEntries& out);
void layer(EnvEntries& into, const EnvEntries& over);
std::string envJson(const EnvEntries& env);
EnvEntries envFromJson(std::string_view text);

// The meta row (protocol §7.10): { format: 1, id, createdAt, lastUsed, envVars, lifetime }.
struct Sandbox::Meta {
  std::string id;
  std::string createdAt;
  std::string lastUsed;
  EnvEntries env;  // values always set
  std::string lifetime;

  std::string toJson() const {
    std::string out;
    Writer w(out);
    w.beginObject();
    w.key("format").integer(kStorageFormat);
    w.key("id").string(id);
    w.key("createdAt").string(createdAt);
    w.key("lastUsed").string(lastUsed);
    w.key("envVars").raw(envJson(env));
    w.key("lifetime").string(lifetime);
    w.endObject();
    return out;
  }
  static Meta fromJson(const Value& v) {
    Meta m;
    m.id = stringOr(member(v, "id"), "");
    m.createdAt = stringOr(member(v, "createdAt"), "");
    m.lastUsed = stringOr(member(v, "lastUsed"), m.createdAt);
    if (const Value* env = member(v, "envVars"); env && env->isObject())
      for (const auto& [key, value] : env->members())
        if (value.isString()) m.env.emplace_back(key, value.asString());
    m.lifetime = stringOr(member(v, "lifetime"), "");
    return m;
  }
};

// A context row (protocol §7.10): { id, binding, language, engine, cwd, envVars, createdAt, lastUsed, executions,
// snapshot }.
struct Sandbox::Context : durable::ContextRow {
  std::string binding;
  std::string language;
  std::string engine;
  std::string envJson = "{}";
  std::string snapshotJson = "null";  // exactly what the interpreter last returned
  // The last execute whose state was not restored (docs/snapshots.md): {code, message, at}; empty = none yet.
  std::string restoreErrorJson;

  std::string toJson() const {
    std::string out;
    Writer w(out);
    w.beginObject();
    w.key("id").string(id);
    w.key("binding").string(binding);
    w.key("language").string(language);
    w.key("engine").string(engine);
    w.key("cwd").string(cwd);
    w.key("envVars").raw(envJson);
    writeUsage(w);
    w.key("snapshot").raw(snapshotJson);
    if (!restoreErrorJson.empty()) w.key("restoreError").raw(restoreErrorJson);
    w.endObject();
    return out;
  }
  static std::optional<Context> fromJson(std::string_view text) { return read<Context>(text); }
  bool readOwn(const Value& v) {
    binding = stringOr(member(v, "binding"), "");
    language = stringOr(member(v, "language"), "");
    engine = stringOr(member(v, "engine"), "");
    if (const Value* env = member(v, "envVars"); env && env->isObject()) envJson = sandbox::envJson(envFromJson(json::stringify(*env)));
    if (const Value* s = member(v, "snapshot")) snapshotJson = json::stringify(*s);
    if (const Value* e = member(v, "restoreError"); e && e->isObject()) restoreErrorJson = json::stringify(*e);
    return !id.empty() && !binding.empty();
  }
  // The listing entry of GET /contexts and POST /contexts' answer.
  void writeSummary(Writer& w) const {
    w.beginObject();
    w.key("id").string(id);
    w.key("binding").string(binding);
    w.key("language").string(language);
    w.key("cwd").string(cwd);
    w.key("createdAt").string(createdAt);
    w.key("lastUsed").string(lastUsed);
    w.endObject();
  }
};

// What an exchange carries across its asynchronous steps.
struct Sandbox::Exchange::Pending {
  // POST /contexts and the default context
  std::string binding;
  std::string cwd = "/workspace";
  std::string contextEnvJson = "{}";
  std::string language, engine;
  bool contexts = false;
  std::string newId;
  // POST /execute
  std::string code;
  EnvEntries callEnv;
  std::string contextId;
  // DELETE / and the alarm
  std::vector<std::string> bindings;
  std::size_t nextBinding = 0;
  bool respondWhenDone = true;
};

}  // namespace sw::sandbox
