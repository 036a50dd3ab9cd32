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
#include "core/base/json.h"
#include "core/base/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// The structural delta from `from` to `to` (pure; see the format above).
Json makeDelta(const Json &from, const Json &to);
// Applies a delta made by makeDelta; a delta that does not fit the document is a Parse error.
Status applyDelta(Json &doc, const Json &delta);

// JSON text validated and indexed in one pass, without building a DOM: the recorder's hot path
// (every watch event) only needs a few identity strings and a delta against the previous version,
// and a full nlohmann parse of every event cost ~70% of the writer thread (bench_history profile).
// Values stay the server's own bytes, so a delta carries them verbatim (exact numbers and strings).
//
// Acceptance: build() says Ok only for text that parseJson() accepts and decodes to the same tree
// (strict grammar, UTF-8 and surrogate checks, finite numbers). Text it does not model (a byte
// order mark, duplicate keys, nesting deeper than kMaxDepth, numbers that under/overflow a double)
// is Unsupported: the caller then falls back to parseJson() and a snapshot.
class JsonIndex
{
public:
    enum class Type : std::uint8_t { Null, False, True, Number, String, Object, Array };
    enum class Status { Ok, Invalid, Unsupported };
    static constexpr int kMaxDepth = 200;

    // Preorder: the children of node i are i+1 .. nodes[i].next-1, sibling to sibling via `next`.
    struct Node {
        std::uint32_t begin = 0, end = 0;       // the value's bytes in text()
        std::uint32_t next = 0;                 // first node after this subtree
        std::uint32_t keyBegin = 0, keyLen = 0; // object member: its key's bytes, quotes included
        Type type = Type::Null;
        bool keyEscaped = false; // the key has escapes: key() decodes it (rare)
    };

    Status build(std::string text);
    bool empty() const { return m_nodes.empty(); }
    const std::string &text() const { return m_text; }
    const std::vector<Node> &nodes() const { return m_nodes; }
    std::string_view raw(const Node &n) const { return std::string_view(m_text).substr(n.begin, n.end - n.begin); }
    std::string_view rawKey(const Node &n) const { return std::string_view(m_text).substr(n.keyBegin, n.keyLen); }
    // The decoded key of an object member. Inline: the indexer's duplicate-key check and the
    // delta compare keys many times per node, nearly all of them without escapes.
    std::string_view key(std::uint32_t node) const
    {
        const Node &n = m_nodes[node];
        if (n.keyEscaped)
            return decodedKey(node);
        return n.keyLen < 2 ? std::string_view() : std::string_view(m_text.data() + n.keyBegin + 1, n.keyLen - 2);
    }
    // The member `name` of object node `object`, or -1.
    std::int64_t member(std::uint32_t object, std::string_view name) const;
    // The decoded string at `node`, or "" when it is not a string.
    std::string stringAt(std::int64_t node) const;
    std::size_t memoryBytes() const { return m_text.capacity() + m_nodes.capacity() * sizeof(Node); }
    // Gives back the room build() reserved for nodes (a guess from the text's size, ~1.7x what a
    // Pod needs): for an index kept after its event, as the history writer's heads are.
    void shrinkToFit()
    {
        m_nodes.shrink_to_fit();
        m_text.shrink_to_fit();
    }

private:
    friend struct JsonIndexer;
    std::string_view decodedKey(std::uint32_t node) const;
    std::string m_text;
    std::vector<Node> m_nodes;
    std::vector<std::pair<std::uint32_t, std::string>> m_decodedKeys; // node -> key, sorted by node
};

// The delta from `from` to `to` (the format above, as JSON text) computed on the indexes: subtrees
// with identical bytes are skipped without a walk. Decoding it with applyDelta() gives exactly
// parseJson(to.text()) from parseJson(from.text()). Returns false, leaving `out` unspecified, when
// the text would exceed maxBytes (the caller stores a snapshot instead).
bool makeDeltaText(const JsonIndex &from, const JsonIndex &to, std::size_t maxBytes, std::string &out);

class VersionCodec
{
public:
    // A version chain longer than this gets a snapshot (bounded read cost).
    static constexpr int kMaxChain = 32;

    VersionCodec();
    ~VersionCodec();
    VersionCodec(const VersionCodec &) = delete;
    VersionCodec &operator=(const VersionCodec &) = delete;

    // The most text one stored version (a snapshot or a delta) may decode to. Rows come from
    // whoever can write the store (a teammate's recorder, a careless script): the cap is checked
    // on the frame's header and the raw length before anything is allocated. The API server keeps
    // objects under etcd's request limit (1.5 MiB by default); 8 MiB of JSON leaves room for
    // binaryData's base64 and a raised limit. FIELDSCOPE_MAX_VERSION_MIB (1-1024) changes it.
    static constexpr std::size_t kDefaultMaxVersionBytes = std::size_t(8) << 20;
    static std::size_t maxVersionBytesFromEnvironment();
    // What one version's chain (its snapshot and the deltas after it) may decode to in all: a
    // chain of large deltas would otherwise grow one object past the per-row cap.
    static constexpr std::size_t kChainBudgetFactor = 4;

    // Blob layout: one tag byte ('Z' zstd frame follows, 'R' raw bytes follow) + payload.
    std::string compress(std::string_view text);
    Result<std::string> decompress(std::string_view blob);

    std::string encodeSnapshot(const Json &object) { return compress(toJsonText(object)); }
    // `chainBytes`, when given, counts the text decoded for one object's chain: a snapshot starts
    // it, each delta adds to it, and a chain past kChainBudgetFactor times the cap is refused.
    Result<Json> decodeSnapshot(std::string_view blob, std::size_t *chainBytes = nullptr);
    Status applyDeltaBlob(Json &doc, std::string_view blob, std::size_t *chainBytes = nullptr);

    std::size_t maxVersionBytes() const { return m_maxVersionBytes; }
    void setMaxVersionBytes(std::size_t bytes) { m_maxVersionBytes = bytes; }

private:
    struct Contexts;
    std::unique_ptr<Contexts> m_ctx;
    std::size_t m_maxVersionBytes = maxVersionBytesFromEnvironment();
};

} // namespace fieldscope::core
