// The rows of one object's history as a store holds them (a snapshot and the deltas after it),
// decoded as every reader does (HistoryStore::forEachVersion, scan, loadVersion): the rows of a
// shared store are written by whoever can write it. Input: rows, each a flag byte (bit 0: a
// snapshot), a 4-byte little-endian length and that many bytes of blob ('Z' zstd / 'R' raw).
#include "core/history/versioncodec.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace fieldscope::core;
    static VersionCodec codec;
    codec.setMaxVersionBytes(std::size_t(1) << 20); // the bounds are what is fuzzed, not the size
    std::string_view in(reinterpret_cast<const char *>(data), size);
    Json doc;
    std::size_t chainBytes = 0;
    bool readable = false;
    while (in.size() >= 5) {
        const bool snapshot = (std::uint8_t(in[0]) & 1) != 0;
        const std::uint32_t len = std::uint32_t(std::uint8_t(in[1])) | std::uint32_t(std::uint8_t(in[2])) << 8
                                | std::uint32_t(std::uint8_t(in[3])) << 16 | std::uint32_t(std::uint8_t(in[4])) << 24;
        in.remove_prefix(5);
        const std::string_view blob = in.substr(0, len);
        in.remove_prefix(blob.size());
        if (snapshot) {
            auto snap = codec.decodeSnapshot(blob, &chainBytes);
            readable = bool(snap);
            if (snap)
                doc = std::move(*snap);
        } else if (readable) {
            readable = bool(codec.applyDeltaBlob(doc, blob, &chainBytes));
        }
    }
    return 0;
}
