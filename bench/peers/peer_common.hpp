// What every peer plugin of `zwang bench` does alike: messages into the request's fixed buffers,
// and the check that the bench and the plugin agree on the interface.
#pragma once

#include <cstdio>
#include <string>

#include "host/cli/bench_peer.h"

namespace zwang_peer {

inline void put(ZwangPeerText* out, const std::string& text) {
  std::snprintf(out->text, sizeof(out->text), "%s", text.c_str());
}

// clears note and error; false, with the reason in error, when the bench was built from another
// version of host/cli/bench_peer.h
inline bool request_matches(const ZwangPeerRequest* r, ZwangPeerText* note, ZwangPeerText* error) {
  put(note, "");
  put(error, "");
  if (r->abi_version == ZWANG_PEER_ABI_VERSION) return true;
  put(error, "the bench and the plugin were built from different versions");
  return false;
}

}  // namespace zwang_peer
