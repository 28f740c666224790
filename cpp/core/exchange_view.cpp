#include "exchange_view.h"

namespace sw::core {

std::optional<http::RequestHead> requestHeadFrom(std::string_view input, uint32_t methodLen, uint32_t urlLen,
                                                 uint32_t headersLen, bool hasBody) {
  if (uint64_t(methodLen) + urlLen + headersLen > input.size()) return std::nullopt;
  http::RequestHead head;
  head.method = std::string(input.substr(0, methodLen));
  head.url = std::string(input.substr(methodLen, urlLen));
  head.headers = http::parseHeaderBlock(input.substr(std::size_t(methodLen) + urlLen, headersLen));
  head.hasBody = hasBody;
  return head;
}

ActionFields respondFields(uint32_t kind, const http::Response& response) {
  ActionFields f;
  f.kind = kind;
  f.status = uint32_t(response.status);
  f.body = response.body;
  f.headers = &response.headers;
  return f;
}

const sw_action_view* publishView(const ActionFields& f, sw_action_view& v, std::string& headerBlock) {
  auto span = [](std::string_view s, uint32_t& ptr, uint32_t& len) {
    ptr = address(s.data());
    len = uint32_t(s.size());
  };
  v = {};
  v.kind = f.kind;
  v.status = f.status;
  span(f.body, v.body_ptr, v.body_len);
  headerBlock = f.headers ? http::serializeHeaderBlock(*f.headers) : std::string();
  if (!headerBlock.empty()) span(headerBlock, v.headers_ptr, v.headers_len);
  span(f.target, v.target_ptr, v.target_len);
  span(f.path, v.path_ptr, v.path_len);
  span(f.method, v.method_ptr, v.method_len);
  v.limit = uint32_t(f.limit);
  return &v;
}

ActionFields actionFields(const server::Action& a, char* body, std::size_t bodyCapacity) {
  ActionFields f;
  f.kind = uint32_t(a.kind);
  switch (a.kind) {
    case server::ActionKind::Respond:
      return respondFields(f.kind, a.response);
    case server::ActionKind::ReadBody:
      f.body = std::string_view(body, bodyCapacity);
      break;
    case server::ActionKind::Forward:
      f.limit = a.bodyLimit;  // forward at most limit + 1 body bytes
      f.path = a.forwardPath;
      f.target = a.interpreterKey;
      f.headers = &a.forwardHeaders;
      break;
    case server::ActionKind::RunEngine:
      break;  // the Worker's exchange answers it before publishing (core.cpp)
  }
  return f;
}

}  // namespace sw::core
