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

void publishAction(const server::Action& a, char* body, std::size_t bodyCapacity, sw_action_view& v,
                   std::string& headerBlock) {
  v = {};
  v.kind = uint32_t(a.kind);
  switch (a.kind) {
    case server::ActionKind::Respond:
      v.status = uint32_t(a.response.status);
      v.body_ptr = address(a.response.body.data());
      v.body_len = uint32_t(a.response.body.size());
      headerBlock = http::serializeHeaderBlock(a.response.headers);
      break;
    case server::ActionKind::ReadBody:
      v.body_ptr = address(body);
      v.body_len = uint32_t(bodyCapacity);
      return;
    case server::ActionKind::Forward:
      v.status = uint32_t(server::bodyReadBound(a.bodyLimit));  // how many body bytes to forward at most
      v.body_ptr = address(a.forwardPath.data());
      v.body_len = uint32_t(a.forwardPath.size());
      v.extra_ptr = address(a.interpreterKey.data());
      v.extra_len = uint32_t(a.interpreterKey.size());
      headerBlock = http::serializeHeaderBlock(a.forwardHeaders);
      break;
    case server::ActionKind::RunEngine:
      return;  // the Worker's exchange answers it before publishing (core.cpp)
  }
  if (!headerBlock.empty()) {
    v.headers_ptr = address(headerBlock.data());
    v.headers_len = uint32_t(headerBlock.size());
  }
}

}  // namespace sw::core
