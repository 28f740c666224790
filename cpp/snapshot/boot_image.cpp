// Boot images: the file format and applying one (boot_image.h). Taking one: the sw_boot_image_* exports of
// cpp/core/builtin.cpp, which scripts/boot-images.mjs drives in Node at build time.
#include "boot_image.h"

#include <cmath>
#include <cstring>

namespace sw::snapshot {

namespace {

constexpr char kMagic[8] = {'S', 'W', 'B', 'O', 'O', 'T', '2', '\n'};
constexpr uint64_t kImageIdSeed = 0x5357494d41474531ull;  // "SWIMAGE1"

uint32_t get32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; i++) out.push_back(char((v >> (8 * i)) & 0xff));
}

bool wholeNumber(const json::Value* v, double max) {
  return v && v->isNumber() && v->asNumber() >= 0 && v->asNumber() <= max && std::floor(v->asNumber()) == v->asNumber();
}

}  // namespace

std::shared_ptr<BootImage> parseBootImage(std::vector<uint8_t> bytes, std::string& error) {
  auto image = std::make_shared<BootImage>();
  image->bytes = std::move(bytes);
  const std::vector<uint8_t>& b = image->bytes;
  auto bad = [&](const std::string& what) {
    error = "Invalid boot image: " + what;
    return nullptr;
  };
  if (b.size() < 12 || std::memcmp(b.data(), kMagic, 8) != 0) return bad("not a boot image");
  image->id = hash64(b.data(), b.size(), kImageIdSeed);
  if (!image->id) image->id = 1;
  const uint32_t headerLen = get32(b.data() + 8);
  if (headerLen > b.size() - 12) return bad("truncated header");
  auto header = json::parseCopy(std::string_view(reinterpret_cast<const char*>(b.data() + 12), headerLen));
  if (!header.ok() || !header.value.isObject()) return bad("header is not a JSON object");
  const json::Value& h = header.value;
  const json::Value* build = h.find("build");
  const json::Value* engine = h.find("engine");
  const json::Value* module = h.find("module");
  const json::Value* handle = h.find("handle");
  const json::Value* manifest = h.find("manifest");
  if (!build || !build->isString() || !engine || !engine->isString() || !module || !module->isString() ||
      !wholeNumber(handle, 4294967295.0) || !manifest || !manifest->isString())
    return bad("header fields");
  image->build = build->asString();
  image->engine = engine->asString();
  image->module = module->asString();
  image->handle = uint64_t(handle->asNumber());
  if (const json::Value* globals = h.find("globals")) image->globals = *globals;
  if (!Manifest::decode(manifest->asString(), image->manifest, error)) return bad(error);
  std::size_t at = 12 + std::size_t(headerLen);
  while (at < b.size()) {
    if (b.size() - at < 8) return bad("truncated segment");
    const uint32_t id = get32(b.data() + at), len = get32(b.data() + at + 4);
    if (len > b.size() - at - 8) return bad("truncated segment");
    image->chunks.push_back({id, b.data() + at + 8, len});
    at += 8 + std::size_t(len);
  }
  return image;
}

std::string encodeBootImage(std::string_view build, std::string_view engine, std::string_view module, uint64_t handle,
                            std::string_view globalsJson, const Manifest& manifest,
                            const std::vector<StoredChunk>& rows) {
  std::string header;
  json::Writer w(header);
  w.beginObject();
  w.key("build").string(build);
  w.key("engine").string(engine);
  w.key("module").string(module);
  w.key("handle").number(double(handle));
  w.key("manifest").string(manifest.encode());
  w.endObject();
  // The globals are the guest's own JSON (from the shim); spliced in before the closing brace.
  if (!globalsJson.empty()) header.insert(header.size() - 1, ",\"globals\":" + std::string(globalsJson));
  std::string out(kMagic, sizeof kMagic);
  put32(out, uint32_t(header.size()));
  out += header;
  for (const StoredChunk& c : rows) {
    put32(out, c.id);
    put32(out, c.len);
    out.append(reinterpret_cast<const char*>(c.data), c.len);
  }
  return out;
}

bool applyBootImage(const BootImage& image, Memory& memory, std::string& error) {
  Tracker unused;
  return restore(memory, image.manifest, image.chunks, unused, error);
}

std::string noDataModuleId(std::string_view section) {
  constexpr std::string_view kPrefix = "sw-nodata1;module=";
  if (!section.starts_with(kPrefix) || section.size() < kPrefix.size() + 16) return "";
  std::string_view id = section.substr(kPrefix.size(), 16);
  if (section.size() > kPrefix.size() + 16 && section[kPrefix.size() + 16] != ';') return "";
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return "";
  }
  return std::string(id);
}

}  // namespace sw::snapshot
