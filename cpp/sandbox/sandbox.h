// cpp/sandbox: the caller's `Sandbox` Durable Object (protocol §7.3-§7.10) as a sans-I/O state machine, like the
// Interpreter (cpp/interp). One Sandbox per Durable Object instance holds every rule: the x-sandbox-id check, routing,
// body caps, validation, the context registry, the binding probe, env layering, the files API (over sandbox::Files),
// SandboxInfo, the idle alarm and the storage (format 1). The shim (worker-shim/sandbox.js) only performs the actions
// an Exchange asks for and feeds the answers back:
//
//   Respond   send this response (the exchange is over)
//   ReadBody  copy at most bodyLimit + 1 body bytes into bodyBuffer(), then bodyReceived(n)
//   Fetch     env[binding].fetch(method https://sandbox.internal<path>, body), then fetched(answer) with at most
//             bodyLimit + 1 bytes of the response body (or "no such binding" / "it threw")
//   Call      env[binding].executeInContext(path = the interpreter key, JSON.parse(body), getFiles), then called(answer)
//
// The getFiles callback the Call passes answers from the in-memory tree through filesFor(); it may be called
// (re-entrantly, from the runtime Worker) while the exchange waits for called(). That is safe because an exchange
// never changes the tree between issuing a Call and receiving its answer, and filesFor() only reads.
// Requests are processed one at a time (the shim chains them, protocol §7.3); an Exchange assumes so.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../abi/abi.h"
#include "../durable/durable.h"
#include "../http/http.h"
#include "../json/json.h"
#include "../server/server.h"
#include "../wasi/wasi.h"
#include "files.h"

namespace sw::sandbox {

constexpr int kStorageFormat = 1;
// JSON bodies of every route but /files (protocol §7.3), and of /files (protocol §7.7).
constexpr std::size_t kJsonBodyLimit = server::kRequestBodyLimit;
constexpr std::size_t kFilesBodyLimit = abi::FILES_REQUEST_MAX_BYTES;
// What the Sandbox reads of a binding's answers: the probe and the interpreter's context routes are small JSON
// objects; a stateless POST /execute result is at most a few hundred KiB (64 KiB code echo + 64 KiB result + 32 KiB
// of logs, JSON-escaped). More is the binding's failure (502).
constexpr std::size_t kProbeAnswerLimit = 65536;
constexpr std::size_t kRelayAnswerLimit = 4 * 1048576;
// An executeInContext result as the shim encodes it (JSON + file bytes): the interpreter's own backstop for a round's
// changes is 24 MiB (server::kMaxWorkspaceChangeBytes), plus the result's JSON.
constexpr std::size_t kMaxCallResultBytes = 28 * 1048576;
// A getFiles request (the paths as JSON): the workspace has at most 4,096 entries of bounded path length.
constexpr std::size_t kMaxGetFilesRequestBytes = 4 * 1048576;

// SANDBOX_FILE_API (protocol §7.7): the File API is disabled only by exactly "disabled" (nullopt: unset).
bool fileApiDisabledBy(std::optional<std::string_view> value);

struct Config {
  std::string objectId;  // this Durable Object's id (ctx.id.toString()): the interpreter key, protocol §4.1
  double idleTtlMs = durable::kDefaultIdleTtlMs;  // SANDBOX_IDLE_TTL_MS, parsed with durable::parseIdleTtl
  bool fileApiDisabled = false;  // SANDBOX_FILE_API === "disabled"
};

enum class ActionKind : uint32_t {
  Respond = abi::ACTION_RESPOND,
  ReadBody = abi::ACTION_READ_BODY,
  Fetch = abi::SBX_ACTION_FETCH,
  Call = abi::SBX_ACTION_CALL,
};

struct Action {
  ActionKind kind = ActionKind::Respond;
  http::Response response;  // Respond
  // ReadBody: the request body's limit; Fetch: the limit of the answer's body; Call: unused (kMaxCallResultBytes).
  std::size_t bodyLimit = 0;
  std::string binding;  // Fetch, Call: the env member
  std::string method;   // Fetch
  std::string path;     // Fetch: the path on https://sandbox.internal; Call: the interpreter key
  std::string body;     // Fetch: the request body (JSON; empty = none); Call: the args as JSON
};

// What the shim saw of a Fetch.
struct FetchAnswer {
  enum class Kind : uint32_t {
    Response = abi::SBX_ANSWERED,   // status + at most bodyLimit + 1 body bytes
    NoBinding = abi::SBX_NO_BINDING,  // env[binding] is not an object with a fetch function
    Threw = abi::SBX_THREW,         // fetch (or reading the body) threw: message
  };
  Kind kind = Kind::Threw;
  int status = 0;
  std::string body;
  std::string message;
};

// What the shim saw of a Call.
struct CallAnswer {
  enum class Kind : uint32_t {
    Result = abi::SBX_ANSWERED,       // json (+ files)
    NoBinding = abi::SBX_NO_BINDING,  // env[binding] has no executeInContext function
    Threw = abi::SBX_THREW,           // the RPC threw or rejected: message
    TooLarge = abi::SBX_TOO_LARGE,    // the result would encode to more than kMaxCallResultBytes: not copied
  };
  Kind kind = Kind::Threw;
  // The result as JSON, except each result.workspace.files[i].data that was a Uint8Array: that is null in the JSON
  // and its bytes are files[i]. files[i] is nullopt where data was anything else.
  std::string json;
  std::vector<std::optional<std::string>> files;
  std::string message;
};

// Its storage, wipe and idle alarm are the Durable Object base's (cpp/durable); the rules are its own.
class Sandbox : private durable::Object {
 public:
  // Creates the tables, wiping any other layout first (protocol §7.10), and loads the state. `armedAlarm`: the alarm the
  // platform reports at start-up (NaN when none). `random`: null = wasi::systemRandom() (context ids, lifetime).
  Sandbox(durable::Sql& sql, durable::Alarm& alarm, server::Clock& clock, Config config, double armedAlarm,
          wasi::RandomSource random = {});
  ~Sandbox() override;

  // One request (or one alarm run).
  class Exchange : public durable::Exchange<Action> {
   public:
    explicit Exchange(Sandbox& owner);
    ~Exchange() override;
    const Action& start(const http::RequestHead& head);
    // The alarm handler (protocol §7.9): Fetch actions for a destroy, then a Respond whose content nobody reads.
    const Action& startAlarm();
    const Action& bodyReceived(std::size_t n);
    const Action& bodyFailed();
    const Action& fetched(FetchAnswer answer);
    const Action& called(CallAnswer answer);

   private:
    struct Pending;
    enum class Route : uint8_t { None, Execute, CreateContext, SetEnv, Files };
    enum class Stage : uint8_t {
      Idle,
      Body,             // waiting for the request body
      ProbeCreate,      // POST /contexts: the probe
      RemoteCreate,     // POST /contexts: POST /interpreters/<key>/contexts
      ProbeDefault,     // POST /execute {binding}: the probe before the default context is created
      RemoteDefault,    // POST /execute {binding}: POST /interpreters/<key>/contexts
      Stateless,        // POST /execute on a contexts:false binding
      Execute,          // executeInContext
      DeleteRemote,     // DELETE /contexts/:id: DELETE /interpreters/<key>/contexts/<id>
      Destroy,          // DELETE / or the alarm: DELETE /interpreters/<key> per binding
      Done,
    };

    void responded() override;
    const Action& readBody(const http::RequestHead& head, Route route, std::size_t limit);
    const Action& fetch(Stage stage, std::string binding, std::string method, std::string path, std::string body,
                        std::size_t limit);

    const Action& createContext(const json::Value& body);
    const Action& execute(const json::Value& body);
    const Action& setEnv(const json::Value& body);
    const Action& files(const json::Value& body);
    const Action& listContexts();
    const Action& deleteContext(std::string id);
    const Action& info();
    const Action& destroy(bool respondWhenDone);
    const Action& nextDestroyStep();

    // The probe answer (protocol §7.4 step 5): the message of the 400, or nullopt with language/engine/contexts set.
    std::optional<std::string> judgeProbe(const FetchAnswer& answer, bool requireContexts);
    const Action& remoteCreate(Stage stage);
    bool remoteCreated(const FetchAnswer& answer);
    const Action& callExecute();
    const Action& executed(CallAnswer answer);
    const Action& bindingFailed(std::string_view message);

    Sandbox& owner_;
    Stage stage_ = Stage::Idle;
    Route route_ = Route::None;
    std::unique_ptr<Pending> pending_;
  };

  // The getFiles answer (protocol §2.7 GetWorkspaceFiles): `pathsJson` is the callback's argument as JSON; every path that
  // is a file here, with its bytes and updatedAt; anything else (a non-array, a non-string, an unknown path) is
  // skipped. Always [] while the File API is disabled. Read-only: safe while an exchange waits for a Call.
  std::vector<workspace::File> filesFor(std::string_view pathsJson) const;

  const Files& files() const { return files_; }
  std::size_t contextCount() const;

 private:
  struct Context;
  struct Meta;
  friend class Exchange;

  // storage (protocol §7.10)
  void load();
  void ensureMeta(std::string_view id);
  void writeMeta();
  void saveContext(const Context& c);
  void persist(const Changes& changes);
  void wipe();  // destroy: storage, alarm, in-memory state (protocol §7.9)
  void recordLastUsed(const std::string& iso) override;

  Config config_;
  std::unique_ptr<Meta> meta_;  // null: no meta row yet
  std::vector<Context> contexts_;  // in createdAt order
  Files files_;
};

}  // namespace sw::sandbox
