// cpp/gateway: the Playground gateway's protocol logic (protocol §8): one Worker in front of every runtime Worker (one
// Service Binding per language) and of its own `Sandbox` Durable Object.
//
// Sans-I/O like the runtime Worker (cpp/server): each request is an Exchange whose next Action the shim
// (gateway/worker.js) carries out — respond, read the body, fetch a runtime binding and hand its answer back, relay a
// runtime's or the Sandbox's answer, serve a static asset — and feeds back. Routing, validation (POST /execute is
// validated by the runtime Worker's own protocol §2.3 code, cpp/server), the body caps, the sandbox id rules, the forced
// `binding` and GET /languages' entries are all decided here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../abi/abi.h"
#include "../http/http.h"
#include "../server/server.h"
#include "limits.h"

namespace sw::gateway {

// A runtime the gateway fronts: one row of its PLAYGROUND_LANGUAGES var, which scripts/languages.mjs generates from the
// language manifests (engines/<id>/engine.json) into the gateway's wrangler config, in the order GET /languages lists.
struct Language {
  std::string id;       // the URL segment and the runtime's language: "python"
  std::string binding;  // the gateway's Service Binding to its runtime Worker: "PYTHON"
  std::string name;     // "Python"
  std::string package;  // "@sandbox-workers/python"
  // The runtime's configured limits (its manifest's `limits`; the gateway test checks its Engine agrees). A runtime's
  // probe (protocol §2.2) does not report them.
  double fuel = 0;
  double memoryBytes = 0;
  bool isDefault = false;  // POST /execute without a language runs on it
};

// The table from the gateway's string vars (a JSON object; PLAYGROUND_LANGUAGES holds a JSON array of
// {id, name, binding, package, fuel, memoryBytes, default?}); nullopt and `error` set when it is missing or malformed.
std::optional<std::vector<Language>> parseLanguages(std::string_view varsJson, std::string& error);

// The package version GET /languages reports (the repository's package.json version, set at build time).
std::string_view packageVersion();

// The sandbox id rules (protocol §7.2, server::sandboxIdError) and no dot segment: the message of the 400 when `id`
// breaks them, nullopt when it is valid.
std::optional<std::string> sandboxIdError(std::string_view id);

// Body caps of the sandbox routes (protocol §8): POST .../files 2 MiB, every other POST 96 KiB.
constexpr std::size_t kFilesBodyLimit = abi::FILES_REQUEST_MAX_BYTES;
constexpr std::size_t kSandboxBodyLimit = server::kRequestBodyLimit;
// At most this much of a runtime's probe answer is read (a probe is ~100 bytes).
constexpr std::size_t kProbeAnswerLimit = 4096;

enum class ActionKind : uint32_t {
  Respond = abi::ACTION_RESPOND,
  ReadBody = abi::ACTION_READ_BODY,
  Fetch = abi::GW_FETCH,
  Relay = abi::GW_RELAY,
  Sandbox = abi::GW_SANDBOX,
  Asset = abi::GW_ASSET,
  Limit = abi::GW_LIMIT,
};

struct Action {
  ActionKind kind = ActionKind::Respond;
  http::Response response;                 // Respond
  char* buffer = nullptr;                  // ReadBody: where the body goes, `capacity` bytes
  std::size_t capacity = 0;
  std::string target;                      // Fetch / Relay: the binding; Sandbox: the sandbox id; Limit: the client key
  std::string method;                      // Fetch / Relay / Sandbox: the outgoing request's
  std::string path;
  std::vector<http::Header> headers;
  std::string body;
  std::size_t answerLimit = 0;             // Fetch / Limit: answer bytes handed back at most
};

class Exchange {
 public:
  explicit Exchange(server::Clock& clock = server::systemClock());
  ~Exchange();

  // The gateway Worker's vars (a JSON object of its string vars), before start(): they set the per-client limits
  // (limits.h). Without it no limit applies (the native tests of the routes).
  void configure(std::string_view varsJson);
  // hasAssets: whether the Worker has static assets (env.ASSETS).
  const Action& start(const http::RequestHead& head, bool hasAssets);
  // `n` bytes were written to the ReadBody buffer; n == capacity means the body was longer than allowed.
  const Action& bodyReceived(std::size_t n);
  const Action& bodyFailed();
  // A Fetch's answer: its status and (at most answerLimit + 1 bytes of) its body.
  const Action& fetched(int status, std::string_view body);
  // A Fetch, Relay or Sandbox request threw (the binding is missing or failed).
  const Action& fetchFailed();
  const Action& fail();

  const Action& action() const { return action_; }
  char* inputBuffer(std::size_t len);
  std::string_view input() const { return std::string_view(input_.data(), inputLen_); }

 private:
  // Limiting: the client's Limiter; LimitingTotal: then the all-clients one (sandbox routes); Undoing: taking the
  // client's record back after the total cap refused.
  enum class State { Idle, Execute, SandboxBody, Probing, Limiting, LimitingTotal, Undoing, Forwarded, Done };

  const Action& respond(http::Response r);
  const Action& error(int status, std::string_view code, std::string_view message);
  const Action& methodNotAllowed(std::string_view message, std::string_view allow);
  const Action& fromExecute(const server::Action& inner);
  const Action& nextProbe();
  const Action& forwardSandbox(std::string body, bool hasBody, bool jsonBody);
  // A Relay or Sandbox action (in action_) that costs: first ask the client's Limiter, unless no limit applies.
  const Action& gate();
  const Action& askLimiter(std::string_view key, std::string body, State next);
  const Action& limiterAnswered(int status, std::string_view body);

  server::Clock& clock_;
  Action action_;
  // Per-client limits: the vars' (configure), the client's key, the forward waiting for the Limiter's answer.
  Limits limits_;
  std::optional<std::string> configError_;
  std::vector<Language> languages_;  // configure(): PLAYGROUND_LANGUAGES
  std::optional<std::string> languagesError_;
  const Language* findLanguage(std::string_view id) const;
  std::string client_;
  Action pending_;
  bool clientAdded_ = false;          // the client's Limiter recorded the sandbox id as new for this request
  std::optional<http::Response> refused_;  // the total cap's 429, answered once the undo is done
  State state_ = State::Idle;
  std::vector<char> input_;
  std::size_t inputLen_ = 0;
  // POST /execute[/<language>]: the runtime Worker's own validation (protocol §2.3) for that language.
  const Language* language_ = nullptr;
  std::unique_ptr<server::Exchange> execute_;
  // Sandbox routes.
  std::string sandboxId_;
  std::string sub_;
  std::string method_;
  server::BodyBuffer body_;
  // GET /languages: one probe answer per language so far (nullopt: the binding failed or did not answer 200).
  std::vector<std::optional<std::string>> probes_;
};

// The body of GET /languages from each language's probe answer (same order as `languages`). Exposed for tests.
std::string languagesJson(const std::vector<Language>& languages, const std::vector<std::optional<std::string>>& probeAnswers);

}  // namespace sw::gateway
