#pragma once
// Hot-path decoding of LIST pages and WATCH lines with simdjson (On-Demand): we cut each item's
// raw bytes out of the page and read only metadata, instead of building a DOM of 100k objects.
// Pure functions; called on the network thread.
#include "core/base/result.h"
#include "core/objects/watchtypes.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::kube {

struct DecodedPage {
    std::string resourceVersion;
    std::string continueToken;
    std::int64_t remainingItemCount = -1;
    std::vector<core::ObjectVersion> items; // type Added, fromList = true
};

// `body` must be a complete LIST response. Built-in list items omit kind/apiVersion; they are
// filled in from `itemKind`/`apiVersion` so every stored object is self-describing.
// The string may be grown by a few bytes of padding (simdjson reads past the end).
core::Result<DecodedPage> decodeListPage(std::string &body, const std::string &itemKind, const std::string &apiVersion);

// What a LIST page's metadata says about the next request, read from the page's head without
// decoding its items, so the next page can be asked for while this one decodes. The API server
// writes metadata before items; a page that does not (or whose head is odd: escaped or repeated
// keys, over 1 MiB before "items") gives nullopt, and its successor waits for the full decode.
struct ListHead {
    std::string resourceVersion;
    std::string continueToken;
    std::int64_t remainingItemCount = -1;
};
std::optional<ListHead> peekListHead(std::string_view body);

enum class WatchLineType { Added, Modified, Deleted, Bookmark, Error };
struct DecodedWatchLine {
    WatchLineType type = WatchLineType::Added;
    core::ObjectVersion object;    // Added/Modified/Deleted
    std::string resourceVersion;   // every type but Error
    bool initialEventsEnd = false; // BOOKMARK annotated k8s.io/initial-events-end (streaming lists)
    core::Error error;             // Error: the Status, with code and reason
};

// Decodes one newline-delimited watch event (without the newline).
core::Result<DecodedWatchLine> decodeWatchLine(std::string_view line);

// Splits a byte stream into lines: appends `chunk` to `buffer`, moves complete lines out.
void splitLines(std::string &buffer, std::string_view chunk, std::vector<std::string> &lines);

} // namespace fieldscope::kube
