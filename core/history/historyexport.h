#pragma once
// Export/import of history as JSON Lines (format: docs/history-format.md): a header line, then
// versions and gaps in recording order, one JSON object per line. A file can be imported into a
// store or read directly, so history can be inspected without a cluster (`fieldscope --open`).
// Thread: blocking file and database I/O; call on a worker thread with a store owned by it.
#include "core/history/historystore.h"

#include <string>
#include <vector>

namespace fieldscope::core {

constexpr int kHistoryFormatVersion = 1;

// "2026-07-20T09:14:03.123Z" <-> ms since the epoch (UTC).
std::string formatTimestampMs(std::int64_t ms);
bool parseTimestampMs(std::string_view text, std::int64_t *ms);

// Versions left out because their stored rows cannot be read (HistoryStore::ScanRecord::unreadable).
struct UnreadableVersions {
    static constexpr std::size_t kMaxNamed = 20;
    std::int64_t count = 0;
    std::vector<std::string> named; // "uid resourceVersion: reason", the first kMaxNamed
    void add(const VersionInfo &v, const std::string &reason);
};

// Writes the objects matching `query` (one uid, a namespace, or everything with allNamespaces)
// with the gaps of their scopes. Returns the number of version lines written. A version whose
// row cannot be read is left out and counted in `skipped` (when given): the rest is exported.
Result<std::int64_t> exportJsonLines(HistoryStore &store, const ObjectQuery &query, const std::string &filePath,
                                     UnreadableVersions *skipped = nullptr);

// One version line read back.
struct ExportedVersion {
    WatchScope scope;
    std::string uid;
    std::string resourceVersion;
    HistoryEventType eventType = HistoryEventType::Modified;
    std::int64_t observedAtMs = 0;
    Json object;
};

struct HistoryFile {
    Json header;
    std::vector<ExportedVersion> versions; // file order = recording order
    std::vector<HistoryGap> gaps;
    // gapPositions[i] = number of versions preceding gaps[i] in the file.
    std::vector<std::size_t> gapPositions;
};

// One line holds one object (the server stores at most 1.5 MiB): longer lines are refused.
constexpr std::size_t kMaxHistoryLineBytes = 64u << 20;

// Reads a whole file into memory (tests, fuzzing; importJsonLines streams). A line that is not valid JSON (invalid
// UTF-8 included), nested deeper than kMaxJsonDepth, longer than kMaxHistoryLineBytes, with an unknown "type", a member
// of the wrong type, or a header with a newer formatVersion is a Parse error whose `where` names the line and the
// member ("line 3, /observedAt"). Never throws.
Result<HistoryFile> readJsonLines(const std::string &filePath);
// The same on bytes already in memory (the fuzz target's entry point).
Result<HistoryFile> readJsonLinesText(std::string_view bytes);
// What an import stored, as counts (a list of every version would grow with the file).
struct ImportReport {
    std::int64_t versions = 0;
    std::int64_t gaps = 0;
    std::int64_t skippedDuplicates = 0;
    std::int64_t rejected = 0;
};
// An import's write transactions hold at most this many lines, or this many bytes of objects.
constexpr std::size_t kImportBatchItems = 2000;
constexpr std::size_t kImportBatchBytes = 16u << 20;
// Appends the file's versions and gaps to a store (versions already stored are skipped by the
// store's uid+RV rule), streaming: one line is held at a time plus the pending transaction
// (kImportBatchItems / kImportBatchBytes), so memory does not grow with the file.
Result<ImportReport> importJsonLines(const std::string &filePath, HistoryStore &store);

} // namespace fieldscope::core
