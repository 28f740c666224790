// cpp/interp: the Interpreter Durable Object's logic (protocol §2.6–2.9, §4), the C++ counterpart of the reference's
// InterpreterServer (the rules of protocol §5.3).
//
// One Interpreter per Durable Object instance. It owns the context registry (SQLite rows), the one resident engine
// instance, the in-memory /workspace mirror and the snapshot chunks. Like cpp/server it is sans-I/O where I/O is
// asynchronous: an execute is a state machine whose asynchronous steps are the caller's getFiles callback (start ->
// NeedFiles -> filesReceived) and, for an engine written in JavaScript, a promise from its boot, restore or execute
// (AwaitEngine -> resume, any number of times), ending in Done. Storage (SQLite) runs synchronously.
// Calls are strictly sequential (the shim chains them, protocol §4.9).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../http/http.h"
#include "../server/server.h"
#include "../snapshot/snapshot.h"
#include "../workspace/workspace.h"
#include "../durable/durable.h"

namespace sw::interp {

// The Interpreter keeps its state in its Durable Object's SQL storage (cpp/durable).
using durable::Alarm;
using durable::Sql;
using durable::SqlArg;
using durable::SqlError;
using durable::SqlRow;
using durable::SqlValue;

// --- engine instances --------------------------------------------------------------------------------------------

// SessionOutcome (protocol §5.1): the EngineOutcome JSON ({logs, results, error?, usage?}) and the cwd after the call.
struct SessionOutcome {
  std::string outcomeJson;
  std::string cwd;
};

// What Session::execute throws when the engine itself threw an ExecutionLimitError (protocol §4.4 step 4): the round is
// reported as an ExecutionLimitError instead of an EngineError; otherwise it is a throw like any other (the resident
// is dropped, nothing is snapshotted).
struct SessionLimitThrow : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One live engine instance of a code context (protocol §5.2).
class Session {
 public:
  virtual ~Session() = default;
  // Never throws for a guest error or a limit (those are outcome errors); a throw is a host bug (protocol §5.3 rule 1).
  virtual SessionOutcome execute(std::string_view code, std::string_view envJson) = 0;
  virtual bool invalid() const = 0;
  // False while the guest holds a descriptor beyond the fixed preopens, or once invalid.
  virtual bool canSnapshot() = 0;
  virtual snapshot::Memory& memory() = 0;
  virtual uint64_t handle() const = 0;
  virtual std::string extraJson() const { return "{}"; }
  // Called right after a snapshot of memory() committed, with its tracker: the memory holds exactly that until the
  // guest runs again (a pooled instance can then be restored over without reading it first).
  virtual void holds(const snapshot::Tracker&) {}

  // An engine written in JavaScript may answer boot, restore or execute with a promise (protocol §5.1: session methods
  // may be async). The call then returns with pending() true and nothing decided; the Interpreter answers
  // Step::AwaitEngine with awaitId(), the shim awaits the promise and keeps what it settled to, and on resume the
  // Interpreter calls finishOpen() (after boot/restore; throws as they do) or finishExecute() (after execute; throws
  // as execute does). Built-in engines are synchronous and never pending.
  virtual bool pending() const { return false; }
  virtual uint32_t awaitId() const { return 0; }
  virtual void finishOpen() {}
  virtual SessionOutcome finishExecute() { throw std::logic_error("no execute is pending"); }
};

class SessionFactory {
 public:
  virtual ~SessionFactory() = default;
  // A fresh instance whose /workspace is `workspace`, starting in `cwd`. Throws on failure.
  virtual std::unique_ptr<Session> boot(const std::shared_ptr<wasi::Workspace>& workspace, std::string_view cwd) = 0;
  // An instance restored from a snapshot: instantiate, let `fill` write the memory image (false = the snapshot is
  // unusable: return nullptr), then adopt the stored handle without running any initialisation. Returns nullptr or
  // throws on failure (the Interpreter boots fresh and reports why: a throw's what() is the reason). `handle` is any
  // u64 the engine's snapshot answered. Either may return a pending() session (its promise settles later).
  virtual std::unique_ptr<Session> restore(const std::shared_ptr<wasi::Workspace>& workspace, std::string_view cwd,
                                           const std::function<bool(snapshot::Memory&)>& fill, uint64_t handle,
                                           std::string_view extraJson) = 0;
  // The boot image its instances start from (snapshot::Base::id; 0 = none): a snapshot stored relative to another
  // image is never restored (docs/snapshots.md).
  virtual uint64_t baseImage() const { return 0; }
};

// --- the Durable Object --------------------------------------------------------------------------------------------

constexpr int kStorageFormat = 4;
// How long an execute waits for an engine's promise (INTERPRETER_ENGINE_WAIT_MS; docs/engine-authors.md): a promise
// that never settles must not hold the Interpreter, and every call queued behind it, forever.
constexpr double kDefaultEngineWaitMs = 30000;

// INTERPRETER_ENGINE_WAIT_MS: unset/empty -> default; Number(value) if finite and > 0, else default.
double parseEngineWait(std::optional<std::string_view> value);

// INTERPRETER_MAX_SNAPSHOT_BYTES (docs/limits.md): the most a context's snapshot may store (its rows, compressed).
// Unset, empty, or not a finite number > 0: no cap (0).
double parseMaxSnapshotBytes(std::optional<std::string_view> value);

// What an RPC or HTTP step asks the shim to do next.
struct Step {
  enum class Kind : uint8_t { Done, NeedFiles, AwaitEngine };
  Kind kind = Kind::Done;
  // AwaitEngine: `json` is {"session": id, "waitMs": ms}: the shim awaits that session's promise, then calls
  // executeResume; when it has not settled after `waitMs`, executeAbandon.
  // Done: the JSON of InterpreterExecuteRpcResult ({ok:true,result} | {ok:false,status,body}); file data is not in
  // the JSON: each workspace.files entry has "data":null and its bytes are files[i] (same order).
  std::string json;
  std::vector<std::string> files;
  // NeedFiles: the paths to pass to getFiles, as a JSON array.
  std::string pathsJson;

};

// One entry of a getFiles answer as the shim saw it (the shim reports JavaScript types; C++ validates, protocol §2.7 11a).
struct PulledEntry {
  bool isObject = false;
  bool pathIsString = false;
  bool dataIsBytes = false;
  bool updatedAtIsNumber = false;
  std::string path;
  std::string data;
  double updatedAt = 0;
};

struct Counters {  // for the benchmark and tests: what the last execute did
  uint32_t chunksWritten = 0;
  uint32_t chunksDeleted = 0;
  uint64_t bytesWritten = 0;
  uint32_t rowsWritten = 0;
  uint32_t blocksChanged = 0;    // the snapshot's snapshot::Stats
  uint32_t blocksUnwritten = 0;
  uint32_t memoryBlocks = 0;
  double snapshotMs = 0;
  double restoreMs = 0;
  bool restored = false;
  bool booted = false;
};

// Its storage, wipe and idle alarm are the Durable Object base's (cpp/durable); the rules are its own.
class Interpreter : private durable::Object {
 public:
  // Creates the tables, wiping any legacy or unknown layout first (protocol §4.6). `armedAlarm` is the alarm the platform
  // reports at start-up (NaN when none).
  Interpreter(const server::EngineInfo& engine, Sql& sql, Alarm& alarm, SessionFactory& sessions,
              server::Clock& clock, double idleTtlMs, double armedAlarm);
  ~Interpreter();

  // HTTP (after the Worker forwarded it, protocol §2.6): Respond or ReadBody actions, like server::Exchange.
  class HttpExchange : public durable::Exchange<server::Action> {
   public:
    explicit HttpExchange(Interpreter& owner) : durable::Exchange<server::Action>(owner.clock_), owner_(owner) {}
    const server::Action& start(const http::RequestHead& head);
    const server::Action& bodyReceived(std::size_t n);
    const server::Action& bodyFailed();

   private:
    Interpreter& owner_;
    std::string key_;
  };

  // executeInContext (protocol §2.7). `argsJson` is the args object as JSON ("" when it could not be serialized).
  Step executeStart(std::string_view key, std::string_view argsJson);
  // The getFiles answer: `isArray` false when it was not an array.
  Step executeFiles(bool isArray, std::vector<PulledEntry> entries);
  // The getFiles callback threw (or its promise rejected) instead of answering.
  Step executeFilesFailed();
  // The getFiles answer was over server::kMaxPulledBytes: ENOSPC, as reconciling it would be.
  Step executeFilesTooLarge();
  // After Step::AwaitEngine: the engine's promise settled (the session holds its value or reason).
  Step executeResume();
  // After Step::AwaitEngine: the promise did not settle within waitMs. The round ends as a throw would (EngineError,
  // the instance dropped, nothing snapshotted); a boot that never answered is the generic failure, a restore boots
  // fresh.
  Step executeAbandon();
  void setEngineWaitMs(double ms) { engineWaitMs_ = ms; }
  void setMaxSnapshotBytes(double bytes) { maxSnapshotBytes_ = bytes; }
  // The alarm handler (protocol §4.7).
  void alarm();

  const Counters& counters() const { return counters_; }
  bool hasResident() const { return resident_ != nullptr; }

 private:
  struct SnapshotRecord;
  struct Context;
  struct Pending;

  // storage
  void wipe();  // DELETE / and alarm expiry (protocol §4.8)
  void ensureMeta(std::string_view key);
  void writeMeta();
  std::optional<Context> loadContext(std::string_view id);
  std::size_t contextCount();
  void saveContext(const Context& c);
  void deleteContextRows(std::string_view id);
  void recordLastUsed(const std::string& iso) override;

  // execute
  Step failure(int status, std::string_view code, std::string_view message, std::string_view context = "{}");
  Step failure(const http::Response& error);
  Step internalFailure();
  Step workspaceFailure(const workspace::Error& err);
  Step reconcileAndRun(std::vector<workspace::File> files, bool secondPass);
  Step run();
  Step bootFresh();
  void restoreFailed(std::string_view code, std::string message);
  Step openResident(std::unique_ptr<Session> session, bool restoring);
  Step afterOpen();
  Step openFailed();
  Step execute();
  Step awaitEngine(const Session& session, int phase);
  Step finishRound(SessionOutcome outcome, bool threw);
  void dropResident();
  std::unique_ptr<Session> startRestore(Context& ctx);
  void takeSnapshot(Context& ctx);

  const server::EngineInfo& engine_;
  SessionFactory& sessions_;
  double engineWaitMs_ = kDefaultEngineWaitMs;
  double maxSnapshotBytes_ = 0;  // 0: no cap

  std::string metaJson_;  // the meta row as stored ("" = none)
  workspace::Mirror mirror_;
  std::unique_ptr<Session> resident_;
  std::string residentContext_;
  snapshot::Tracker tracker_;         // the resident's memory state as stored (since its last snapshot/restore)
  snapshot::Tracker pendingTracker_;  // take()'s result, adopted once its transaction committed
  std::unique_ptr<Pending> pending_;
  Counters counters_;
};

}  // namespace sw::interp
