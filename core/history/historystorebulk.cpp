// HistoryStore's bulk writer (a database that writes in bulk: PostgreSQL, where every statement is
// a round trip). Row by row, a version cost three: its head lookup or duplicate check, its
// versions row and its objects row. Here a batch of events costs one lookup of the heads the
// cache lacks (without their bodies: a duplicate needs none), one duplicate check when another
// writer may have stored some of them, and then its rows in three statements: new objects, the
// versions (COPY) and one update per object. The guarantees are the row writer's: the store's
// lock is held throughout, ords are handed out in event order, and the unique keys still refuse
// a second copy of a version; when they do, HistoryStore::write does the transaction again row
// by row (historystorewrite.cpp).
#include "core/history/historystore.h"
#include "core/history/historystore_p.h"

#include <algorithm>

namespace fieldscope::core {

using namespace historydb;

namespace {

// Events decided per lookup: bounds the indexes held at once (a batch's bodies) and the rows held.
constexpr std::size_t kBulkBatch = 2000;
// Versions sent at once: the server stores them while the writer encodes the next ones.
constexpr std::size_t kSendRows = 100;

} // namespace

const char *HistoryStore::Impl::rejectionOf(const WatchEvent &ev, EventBody &body) const
{
    // What readers would refuse is not stored: a marked gap instead (as writeEvent).
    return ev.objectJson.size() > codec.maxVersionBytes() ? "an object larger than the per-version limit"
                                                          : readEventBody(ev, body);
}

void HistoryStore::Impl::readEventsAhead(const std::vector<HistoryWriteItem> &items)
{
    readAhead.clear();
    std::size_t bytes = 0;
    for (const auto &item : items)
        for (const auto &ev : item.events)
            bytes += ev.objectJson.size();
    if (bytes > kReadAheadBytes)
        return;
    readAhead.resize(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].gap)
            continue;
        ReadItem &read = readAhead[i];
        read.bodies.resize(items[i].events.size());
        read.rejected.resize(items[i].events.size());
        for (std::size_t k = 0; k < items[i].events.size(); ++k)
            read.rejected[k] = rejectionOf(items[i].events[k], read.bodies[k]);
    }
}

Status HistoryStore::Impl::writeEventsInBulk(const HistoryWriteItem &item, ReadItem *read, CommitReport &report,
                                             std::set<std::string> *replayed)
{
    if (read && read->bodies.size() != item.events.size())
        read = nullptr;
    for (std::size_t start = 0; start < item.events.size(); start += kBulkBatch) {
        const std::size_t n = std::min(kBulkBatch, item.events.size() - start);
        std::vector<EventBody> bodies(read ? 0 : n);
        std::vector<const char *> rejected;
        if (read) {
            // Moved out batch by batch: a body's index becomes its object's cached head.
            bodies.reserve(n);
            for (std::size_t k = start; k < start + n; ++k)
                bodies.push_back(std::move(read->bodies[k]));
            rejected.assign(read->rejected.begin() + std::ptrdiff_t(start),
                            read->rejected.begin() + std::ptrdiff_t(start + n));
        } else {
            rejected.resize(n);
            for (std::size_t k = 0; k < n; ++k)
                rejected[k] = rejectionOf(item.events[start + k], bodies[k]);
        }
        if (auto st = lookUpBatch(bodies, rejected); !st)
            return st;
        for (std::size_t k = 0; k < n; ++k) {
            const WatchEvent &ev = item.events[start + k];
            Status st = rejected[k] ? writeRejectedGap(item.scope, ev, rejected[k], report)
                                    : writeParsedEvent(item.scope, ev, bodies[k], report, replayed);
            if (!st)
                return st;
            // Here, not when a version is held: the head that version made is in the cache now,
            // and sendHeld() gives it its object's id.
            if (pending.versions.size() >= kSendRows)
                if (auto sent = sendHeld(); !sent)
                    return sent;
        }
    }
    return success();
}

// The rows held so far are sent first: the lookups then see everything this transaction wrote.
Status HistoryStore::Impl::lookUpBatch(const std::vector<EventBody> &bodies, const std::vector<const char *> &rejected)
{
    if (auto st = flushPending(); !st)
        return st;
    pending.touched.clear();
    pending.looked.clear();
    pending.lookedText.clear();
    pending.stored.clear();
    std::vector<std::string> uids;
    std::set<std::pair<std::string, std::string>> pairs;
    const bool checkStored = otherWriters || bulkDuplicateCheck;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        if (rejected[k])
            continue;
        const std::string &uid = bodies[k].id.uid;
        if (!heads.count(uid) && pending.looked.emplace(uid, std::nullopt).second)
            uids.push_back(uid);
        if (checkStored)
            pairs.emplace(uid, bodies[k].id.rv);
    }
    if (!uids.empty()) {
        auto rows = conn->headRows(uids);
        if (!rows)
            return rows.error();
        for (auto &row : *rows)
            pending.looked[row.uid] = std::move(row);
        if (auto st = readSnapshotHeads(bodies, rejected); !st)
            return st;
    }
    if (!pairs.empty()) {
        auto stored = conn->storedVersions({pairs.begin(), pairs.end()});
        if (!stored)
            return stored.error();
        pending.stored.insert(stored->begin(), stored->end());
    }
    return success();
}

// The looked-up heads a delta will be made against (the event's RV is not the head's) whose
// newest version is a snapshot: their text in one query, as a cached head would hold it (the
// snapshot is the stored text itself). Other heads' bodies are read one by one when needed.
Status HistoryStore::Impl::readSnapshotHeads(const std::vector<EventBody> &bodies,
                                             const std::vector<const char *> &rejected)
{
    std::vector<std::pair<std::int64_t, std::int64_t>> rows;
    std::unordered_map<std::int64_t, std::string> uidOf;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        if (rejected[k])
            continue;
        const auto it = pending.looked.find(bodies[k].id.uid);
        if (it == pending.looked.end() || !it->second)
            continue;
        const HeadRow &row = *it->second;
        if (row.lastSnapshotSeq == row.lastSeq && row.rv != bodies[k].id.rv
            && uidOf.emplace(row.objectId, row.uid).second)
            rows.emplace_back(row.objectId, row.lastSeq);
    }
    auto blobs = conn->versionBlobs(rows, kInlineRowBytes);
    if (!blobs)
        return blobs.error();
    for (const auto &[objectId, blob] : *blobs)
        if (auto text = codec.decompress(blob)) // one that does not decode is read by loadVersion
            pending.lookedText[uidOf[objectId]] = std::move(*text);
    return success();
}

Result<Head *> HistoryStore::Impl::lookedUpHead(const std::string &uid, bool &answered)
{
    answered = false;
    // A uid written since the lookup was evicted from the cache: its looked-up head is stale.
    if (!pending.touched.count(uid))
        if (auto it = pending.looked.find(uid); it != pending.looked.end()) {
            answered = true;
            if (!it->second)
                return static_cast<Head *>(nullptr);
            const HeadRow &row = *it->second;
            Head h;
            h.objectId = row.objectId;
            h.seq = row.lastSeq;
            h.deleted = row.deleted != 0;
            h.rv = row.rv;
            h.chain = int(h.seq - row.lastSnapshotSeq);
            h.bodyPending = true;
            if (auto text = pending.lookedText.find(uid); text != pending.lookedText.end()) {
                if (h.index.build(std::move(text->second)) == JsonIndex::Status::Ok) {
                    h.chainTextBytes = std::int64_t(h.index.text().size());
                    h.index.shrinkToFit();
                    h.rawBytes = std::int64_t(h.index.memoryBytes());
                    h.bodyPending = false;
                } else {
                    h.index = JsonIndex();
                }
                pending.lookedText.erase(text);
            }
            // Unknown after a restart; assume a large snapshot so the chain length alone bounds reads.
            h.snapshotBytes = INT64_MAX / 4;
            putHead(uid, std::move(h));
            return &heads.find(uid)->second.first;
        }
    // The caller reads the database: it must see the rows held.
    if (auto st = flushPending(); !st)
        return st.error();
    return static_cast<Head *>(nullptr);
}

// As headFor does for a head it reads whole. The object has no rows held: a head whose body is
// pending was looked up after the last flush and not written since.
Status HistoryStore::Impl::loadHeadBody(Head &head)
{
    if (auto st = conn->awaitVersions(); !st)
        return st;
    auto obj = loadVersion(head.objectId, head.seq);
    if (!obj && obj.error().category != ErrorCategory::Parse && obj.error().category != ErrorCategory::NotFound)
        return obj.error();
    const std::string text = obj ? toJsonText(*obj) : std::string();
    if (!obj || head.index.build(text) != JsonIndex::Status::Ok)
        head.index = JsonIndex();
    head.chainTextBytes = std::int64_t(text.size()) * (2 + head.chain) / 2;
    head.index.shrinkToFit();
    const auto bytes = std::int64_t(head.index.memoryBytes());
    headBytes += bytes - head.rawBytes;
    head.rawBytes = bytes;
    head.bodyPending = false;
    return success();
}

Status HistoryStore::Impl::holdVersion(const WatchScope &scope, const WatchEvent &ev, const EventIdentity &id,
                                       bool isNew, Head &next, bool snapshot, const std::string &blob,
                                       std::size_t textBytes)
{
    if (isNew) {
        pending.objects.push_back({id.uid, GroupVersion::parse(id.apiVersion).group, id.apiVersion, id.kind,
                                   scope.resource, id.namespace_, id.name});
        next.objectId = -std::int64_t(pending.objects.size());
    }
    pending.versions.push_back({nextOrd, next.objectId, next.seq, id.rv, std::int64_t(ev.type), ev.observedAtMs,
                                scope.id, std::int64_t(snapshot), std::int64_t(textBytes), blob, recorderId});
    const auto [at, added] = pending.updateOf.emplace(next.objectId, pending.updates.size());
    if (added)
        pending.updates.push_back({next.objectId, 0, 0, 0, {}, {}});
    ObjectUpdateRow &u = pending.updates[at->second];
    ++u.added;
    u.lastSeq = next.seq;
    u.deleted = std::int64_t(next.deleted);
    u.apiVersion = id.apiVersion;
    if (!id.kind.empty()) // as the row writer's UPDATE: an empty kind keeps the stored one
        u.kind = id.kind;
    pending.touched.insert(id.uid);
    ++nextOrd;
    totalBytes += std::int64_t(blob.size());
    return success();
}

// The held versions go out (their new objects first, for their ids) without waiting for the
// server: it stores them while the next ones are encoded. The objects' updates wait for
// flushPending(), one per object whatever its number of versions.
Status HistoryStore::Impl::sendHeld()
{
    if (!pending.objects.empty()) {
        if (auto st = conn->awaitVersions(); !st)
            return st;
        auto made = conn->insertObjects(pending.objects);
        if (!made)
            return made.error();
        const std::vector<std::int64_t> &ids = *made;
        auto resolve = [&](std::int64_t id) {
            return id < 0 && std::size_t(-id) <= ids.size() ? ids[std::size_t(-id - 1)] : id;
        };
        // Cached heads of new objects carry their placeholder until now.
        for (std::size_t i = 0; i < ids.size(); ++i)
            if (auto it = heads.find(pending.objects[i].uid);
                it != heads.end() && it->second.first.objectId == -std::int64_t(i + 1))
                it->second.first.objectId = ids[i];
        for (auto &v : pending.versions)
            v.objectId = resolve(v.objectId);
        pending.updateOf.clear();
        for (std::size_t k = 0; k < pending.updates.size(); ++k) {
            pending.updates[k].id = resolve(pending.updates[k].id);
            pending.updateOf[pending.updates[k].id] = k;
        }
        pending.objects.clear();
    }
    for (const auto &v : pending.versions) // every placeholder was one of the objects just made
        if (v.objectId < 0)
            return Error::make(ErrorCategory::Io, "history store: bulk write: a version of an unknown object");
    if (auto st = conn->sendVersions(pending.versions); !st)
        return st;
    pending.versions.clear();
    return success();
}

Status HistoryStore::Impl::flushPending()
{
    if (!bulk)
        return success();
    if (auto st = sendHeld(); !st)
        return st;
    if (auto st = conn->awaitVersions(); !st)
        return st;
    if (auto st = conn->updateObjects(pending.updates); !st)
        return st;
    pending.updates.clear();
    pending.updateOf.clear();
    return success();
}

void HistoryStore::Impl::clearPending()
{
    pending = PendingWrites();
}

} // namespace fieldscope::core
