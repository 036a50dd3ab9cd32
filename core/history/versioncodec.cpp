// The structural delta on Json values (makeDelta, applyDelta) and the zstd blob codec
// (VersionCodec). JsonIndex is in versioncodecindex.cpp, the delta on indexes in
// versioncodecindexdelta.cpp.
#include "core/history/versioncodec.h"

#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace fieldscope::core {
namespace {

constexpr char kTagZstd = 'Z';
constexpr char kTagRaw = 'R';
// Below this size zstd's frame header costs more than it saves on JSON text.
constexpr std::size_t kMinCompress = 48;

// True when `to`'s keys are `from`'s surviving keys in the same order followed by the new keys:
// exactly the order that erase-then-append reproduces.
bool keyOrderReproducible(const Json &from, const Json &to)
{
    auto t = to.begin();
    for (auto f = from.begin(); f != from.end(); ++f) {
        if (!to.contains(f.key()))
            continue;
        if (t == to.end() || t.key() != f.key())
            return false;
        ++t;
    }
    for (; t != to.end(); ++t)
        if (from.contains(t.key()))
            return false;
    return true;
}

void diffInto(const Json &a, const Json &b, Json &path, Json &ops)
{
    // Exact type comparison: 80 and 80.0 differ on the wire and must round-trip as sent. Past the
    // common depth limit a differing subtree is replaced whole instead of walked (stack safety).
    if (a.is_structured() && path.size() >= std::size_t(kMaxJsonDepth)) {
        ops.push_back(Json::array({path, b}));
        return;
    }
    if (a.type() != b.type() || !a.is_structured()) {
        if (a.type() != b.type() || a != b)
            ops.push_back(Json::array({path, b}));
        return;
    }
    if (a.is_object()) {
        if (!keyOrderReproducible(a, b)) {
            ops.push_back(Json::array({path, b}));
            return;
        }
        for (auto it = a.begin(); it != a.end(); ++it) {
            if (!b.contains(it.key())) {
                path.push_back(it.key());
                ops.push_back(Json::array({path}));
                path.erase(path.size() - 1);
            }
        }
        for (auto it = b.begin(); it != b.end(); ++it) {
            path.push_back(it.key());
            auto old = a.find(it.key());
            if (old != a.end())
                diffInto(*old, it.value(), path, ops);
            else
                ops.push_back(Json::array({path, it.value()}));
            path.erase(path.size() - 1);
        }
        return;
    }
    // Arrays compare index by index: status/managedFields updates keep positions stable, and a
    // reordering merely costs bytes (the store falls back to a snapshot when a delta is large).
    const std::size_t common = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < common; ++i) {
        path.push_back(i);
        diffInto(a[i], b[i], path, ops);
        path.erase(path.size() - 1);
    }
    for (std::size_t i = a.size(); i > b.size(); --i) {
        path.push_back(i - 1);
        ops.push_back(Json::array({path}));
        path.erase(path.size() - 1);
    }
    for (std::size_t i = a.size(); i < b.size(); ++i) {
        path.push_back(i);
        ops.push_back(Json::array({path, b[i]}));
        path.erase(path.size() - 1);
    }
}

Error deltaError(const std::string &why, std::size_t op)
{
    return Error::make(ErrorCategory::Parse, "history delta does not apply: " + why, "op " + std::to_string(op));
}

Status applyOne(Json &doc, const Json &op, std::size_t n)
{
    if (!op.is_array() || op.empty() || op.size() > 2 || !op[0].is_array())
        return deltaError("malformed op", n);
    const Json &path = op[0];
    const bool isSet = op.size() == 2;
    // The document only gets deeper through a set: keep it within what every walker accepts.
    if (isSet && op[1].is_structured() && path.size() + jsonDepth(op[1]) > std::size_t(kMaxJsonDepth))
        return deltaError("the result would be nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", n);
    if (path.empty()) {
        if (!isSet)
            return deltaError("cannot remove the root", n);
        doc = op[1];
        return success();
    }
    Json *parent = &doc;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const Json &tok = path[i];
        if (tok.is_string() && parent->is_object() && parent->contains(tok.get_ref<const std::string &>()))
            parent = &(*parent)[tok.get_ref<const std::string &>()];
        else if (tok.is_number_unsigned() && parent->is_array() && tok.get<std::size_t>() < parent->size())
            parent = &(*parent)[tok.get<std::size_t>()];
        else
            return deltaError("path not found", n);
    }
    const Json &last = path.back();
    if (last.is_string() && parent->is_object()) {
        const auto &key = last.get_ref<const std::string &>();
        if (isSet)
            (*parent)[key] = op[1];
        else if (parent->erase(key) == 0)
            return deltaError("member to remove not found", n);
        return success();
    }
    if (last.is_number_unsigned() && parent->is_array()) {
        const auto idx = last.get<std::size_t>();
        if (isSet && idx < parent->size())
            (*parent)[idx] = op[1];
        else if (isSet && idx == parent->size())
            parent->push_back(op[1]);
        else if (!isSet && idx < parent->size())
            parent->erase(idx);
        else
            return deltaError("index out of range", n);
        return success();
    }
    return deltaError("path does not match the document", n);
}

} // namespace

Json makeDelta(const Json &from, const Json &to)
{
    Json ops = Json::array();
    Json path = Json::array();
    diffInto(from, to, path, ops);
    return ops;
}

Status applyDelta(Json &doc, const Json &delta)
{
    if (!delta.is_array())
        return deltaError("not an array", 0);
    for (std::size_t i = 0; i < delta.size(); ++i) {
        if (auto st = applyOne(doc, delta[i], i); !st)
            return st;
    }
    return success();
}

struct VersionCodec::Contexts {
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_DCtx *d = ZSTD_createDCtx();
    ~Contexts()
    {
        ZSTD_freeCCtx(c);
        ZSTD_freeDCtx(d);
    }
};

VersionCodec::VersionCodec() : m_ctx(std::make_unique<Contexts>()) {}
VersionCodec::~VersionCodec() = default;

std::string VersionCodec::compress(std::string_view text)
{
    std::string out;
    if (text.size() >= kMinCompress) {
        out.resize(1 + ZSTD_compressBound(text.size()));
        out[0] = kTagZstd;
        // Level 3 (zstd's default): JSON compresses ~5-10x at well over 100 MB/s.
        const std::size_t n = ZSTD_compressCCtx(m_ctx->c, out.data() + 1, out.size() - 1, text.data(), text.size(), 3);
        if (!ZSTD_isError(n) && n < text.size()) {
            out.resize(1 + n);
            return out;
        }
    }
    out.assign(1, kTagRaw);
    out.append(text);
    return out;
}

std::size_t VersionCodec::maxVersionBytesFromEnvironment()
{
    static const std::size_t bytes = [] {
        const char *v = std::getenv("FIELDSCOPE_MAX_VERSION_MIB");
        unsigned mib = 0;
        if (v && *v) {
            const auto [end, ec] = std::from_chars(v, v + std::strlen(v), mib);
            if (ec == std::errc() && *end == '\0' && mib >= 1 && mib <= 1024)
                return std::size_t(mib) << 20;
        }
        return kDefaultMaxVersionBytes;
    }();
    return bytes;
}

namespace {

Error tooLarge(unsigned long long bytes, std::size_t cap)
{
    return Error::make(ErrorCategory::Parse, "the stored version decodes to " + std::to_string(bytes)
                                                 + " bytes, more than the limit of " + std::to_string(cap)
                                                 + " (FIELDSCOPE_MAX_VERSION_MIB raises it)");
}

} // namespace

Result<std::string> VersionCodec::decompress(std::string_view blob)
{
    if (blob.empty())
        return Error::make(ErrorCategory::Parse, "empty history blob");
    if (blob[0] == kTagRaw) {
        if (blob.size() - 1 > m_maxVersionBytes)
            return tooLarge(blob.size() - 1, m_maxVersionBytes);
        return std::string(blob.substr(1));
    }
    if (blob[0] != kTagZstd)
        return Error::make(ErrorCategory::Parse, "unknown history blob tag");
    // The size the frame's header declares is checked before anything is allocated; a frame that
    // declares none (streamed) is refused, so a small row can never expand without a bound.
    const auto size = ZSTD_getFrameContentSize(blob.data() + 1, blob.size() - 1);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
        return Error::make(ErrorCategory::Parse, "corrupt zstd frame in history blob");
    if (size > m_maxVersionBytes)
        return tooLarge(size, m_maxVersionBytes);
    std::string out(size, '\0');
    const std::size_t n = ZSTD_decompressDCtx(m_ctx->d, out.data(), out.size(), blob.data() + 1, blob.size() - 1);
    if (ZSTD_isError(n) || n != size)
        return Error::make(ErrorCategory::Parse,
                           std::string("zstd: ") + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame"));
    return out;
}

Result<Json> VersionCodec::decodeSnapshot(std::string_view blob, std::size_t *chainBytes)
{
    auto text = decompress(blob);
    if (!text)
        return text.error();
    if (chainBytes)
        *chainBytes = text->size();
    return parseJson(*text);
}

Status VersionCodec::applyDeltaBlob(Json &doc, std::string_view blob, std::size_t *chainBytes)
{
    auto text = decompress(blob);
    if (!text)
        return text.error();
    if (chainBytes) {
        *chainBytes += text->size();
        if (*chainBytes > kChainBudgetFactor * m_maxVersionBytes)
            return Error::make(ErrorCategory::Parse, "the stored deltas since the last snapshot decode to more than "
                                                         + std::to_string(kChainBudgetFactor * m_maxVersionBytes)
                                                         + " bytes");
    }
    auto delta = parseJson(*text);
    if (!delta)
        return delta.error();
    return applyDelta(doc, *delta);
}

} // namespace fieldscope::core
