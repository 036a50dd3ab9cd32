// HistoryStore's head cache: the writer's view of each object's newest stored version, so it
// delta-encodes without reading the database back (historystore_p.h, Head). The write
// transaction that fills it is historystorewrite.cpp; the bulk writer's batch reads are
// historystorebulk.cpp.
#include "core/history/historystore.h"
#include "core/history/historystore_p.h"

namespace fieldscope::core {

using namespace historydb;

Result<Head *> HistoryStore::Impl::headFor(const std::string &uid)
{
    if (auto it = heads.find(uid); it != heads.end()) {
        lru.splice(lru.begin(), lru, it->second.second);
        return &it->second.first;
    }
    if (Head *warm = warmUp(uid))
        return warm;
    if (bulk) {
        bool answered = false;
        auto looked = lookedUpHead(uid, answered);
        if (!looked || answered)
            return looked;
    }
    Query q = this->q("SELECT o.id, o.last_seq, o.deleted, v.rv,"
                      " (SELECT MAX(seq) FROM versions WHERE object_id = o.id AND snapshot = 1)"
                      " FROM objects o JOIN versions v ON v.object_id = o.id AND v.seq = o.last_seq WHERE o.uid = ?");
    q.bind(1, uid);
    const int rc = q.step();
    if (rc == kDone)
        return static_cast<Head *>(nullptr);
    if (rc != kRow)
        return error("head lookup");
    Head h;
    h.objectId = q.i64(0);
    h.seq = q.i64(1);
    h.deleted = q.i64(2) != 0;
    h.rv = q.text(3);
    h.chain = int(h.seq - q.i64(4));
    q.reset();
    ++headsReadAlone;
    auto obj = loadVersion(h.objectId, h.seq);
    if (!obj && obj.error().category != ErrorCategory::Parse && obj.error().category != ErrorCategory::NotFound)
        return obj.error();
    // The next delta applies to the decoded version, and parseJson(toJsonText(x)) == x. A head
    // that cannot be read (a row someone else wrote) leaves the index empty: the next version is
    // a snapshot, and recording goes on.
    const std::string headText = obj ? toJsonText(*obj) : std::string();
    if (!obj || h.index.build(headText) != JsonIndex::Status::Ok)
        h.index = JsonIndex();
    // The chain's text is unknown too: at most the snapshot's and half of it per delta.
    h.chainTextBytes = std::int64_t(headText.size()) * (2 + h.chain) / 2;
    h.index.shrinkToFit();
    h.rawBytes = h.accountedBytes();
    // Unknown after a restart; assume a large snapshot so the chain length alone bounds reads.
    h.snapshotBytes = INT64_MAX / 4;
    putHead(uid, std::move(h));
    return &heads.find(uid)->second.first;
}

void HistoryStore::Impl::putHead(const std::string &uid, Head head)
{
    forgetHead(uid); // a cold copy would be older than this head
    headBytes += head.rawBytes;
    lru.push_front(uid);
    heads.emplace(uid, std::make_pair(std::move(head), lru.begin()));
    evictHeads();
}

void HistoryStore::Impl::evictHeads()
{
    // The bulk writer's batch keeps its heads up to kHeadHoldBytes (historystorebulk.cpp), and
    // past it evicts only down to that: the batch's heads go one by one, not all at once.
    const std::int64_t budget = holdBatchHeads ? kHeadHoldBytes : kHeadBudgetBytes;
    while (lru.size() > 1 && (headBytes > budget || lru.size() > kHeadMaxCount)) {
        auto victim = heads.find(lru.back());
        headBytes -= victim->second.first.rawBytes;
        Head head = std::move(victim->second.first);
        heads.erase(victim);
        const std::string uid = std::move(lru.back());
        lru.pop_back();
        // A new object's head carries its placeholder id until sendHeld(): never kept.
        if (head.blobsComplete() && head.objectId > 0 && !head.bodyPending)
            keepCold(uid, std::move(head));
    }
}

void HistoryStore::Impl::carryBlobs(Head *prev, Head &next, bool snapshot, const std::string &blob)
{
    if (!snapshot && !(prev && prev->blobsComplete()))
        return; // read back from the database without its rows: nothing to keep it cold with
    if (!snapshot)
        next.blobs = std::move(prev->blobs);
    next.blobs.push_back(blob);
}

void HistoryStore::Impl::keepCold(const std::string &uid, Head head)
{
    if (auto it = coldHeads.find(uid); it != coldHeads.end()) {
        coldBytes -= it->second.first.rawBytes;
        coldLru.erase(it->second.second);
        coldHeads.erase(it);
    }
    head.index = JsonIndex();
    // The uid twice (the map's key, the LRU's entry), the node, the blobs.
    std::int64_t bytes = std::int64_t(2 * uid.size() + sizeof(Head)) + 64;
    for (const auto &b : head.blobs)
        bytes += std::int64_t(b.size());
    head.rawBytes = bytes;
    coldBytes += bytes;
    coldLru.push_front(uid);
    coldHeads.emplace(uid, std::make_pair(std::move(head), coldLru.begin()));
    while (coldLru.size() > 1 && coldBytes > kColdBudgetBytes) {
        auto victim = coldHeads.find(coldLru.back());
        coldBytes -= victim->second.first.rawBytes;
        coldHeads.erase(victim);
        coldLru.pop_back();
    }
}

Head *HistoryStore::Impl::warmUp(const std::string &uid)
{
    const auto it = coldHeads.find(uid);
    if (it == coldHeads.end())
        return nullptr;
    Head head = std::move(it->second.first);
    coldBytes -= head.rawBytes;
    coldLru.erase(it->second.second);
    coldHeads.erase(it);
    std::size_t chainBytes = 0;
    auto text = decodeChain(
        head.blobs.size(), [&head](std::size_t i) -> const std::string & { return head.blobs[i]; }, chainBytes);
    if (!text || head.index.build(std::move(*text)) != JsonIndex::Status::Ok)
        return nullptr;       // read from the database as if it had never been kept
    head.index.shrinkToFit(); // chainTextBytes: as it was when cached
    head.rawBytes = head.accountedBytes();
    putHead(uid, std::move(head));
    return &heads.find(uid)->second.first;
}

void HistoryStore::Impl::forgetHead(const std::string &uid)
{
    if (auto it = heads.find(uid); it != heads.end()) {
        headBytes -= it->second.first.rawBytes;
        lru.erase(it->second.second);
        heads.erase(it);
    }
    if (auto it = coldHeads.find(uid); it != coldHeads.end()) {
        coldBytes -= it->second.first.rawBytes;
        coldLru.erase(it->second.second);
        coldHeads.erase(it);
    }
}

void HistoryStore::Impl::dropHeads()
{
    heads.clear();
    lru.clear();
    headBytes = 0;
    coldHeads.clear();
    coldLru.clear();
    coldBytes = 0;
}

} // namespace fieldscope::core
