#pragma once
// Compact storage of object versions: a zstd-compressed full snapshot, or a zstd-compressed
// structural delta against the previous version. The store keeps a snapshot at least every
// VersionCodec::kMaxChain versions so that reading any version costs bounded work.
//
// Delta format (a compact JSON array of ops, applied in order), chosen over RFC 7386 merge patch
// because merge patch replaces whole arrays (managedFields, conditions: every update would carry
// them) and cannot express a literal null:
//   [path, value]   set: replace the member/element, or append it (object key missing / index == size)
//   [path]          remove: erase the object member, or the array element at that index
// path is an array of tokens: a string = object member, an integer = array index; [] = the root.
// Reconstruction is exact, key order included: where the new key order is not "old order with
// removals, new keys appended", the delta replaces that object whole.
//
// Thread: a VersionCodec owns zstd contexts and is used by one thread at a time; the free
// functions are thread-safe.
#include "core/json.h"
#include "core/result.h"

#include <memory>
#include <string>
#include <string_view>

namespace fieldscope::core {

// The structural delta from `from` to `to` (pure; see the format above).
Json makeDelta(const Json &from, const Json &to);
// Applies a delta made by makeDelta; a delta that does not fit the document is a Parse error.
Status applyDelta(Json &doc, const Json &delta);

class VersionCodec
{
public:
    // A version chain longer than this gets a snapshot (bounded read cost).
    static constexpr int kMaxChain = 32;

    VersionCodec();
    ~VersionCodec();
    VersionCodec(const VersionCodec &) = delete;
    VersionCodec &operator=(const VersionCodec &) = delete;

    // Blob layout: one tag byte ('Z' zstd frame follows, 'R' raw bytes follow) + payload.
    std::string compress(std::string_view text);
    Result<std::string> decompress(std::string_view blob);

    std::string encodeSnapshot(const Json &object) { return compress(toJsonText(object)); }
    Result<Json> decodeSnapshot(std::string_view blob);
    Status applyDeltaBlob(Json &doc, std::string_view blob);

private:
    struct Contexts;
    std::unique_ptr<Contexts> m_ctx;
};

} // namespace fieldscope::core
