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
#include <functional>
#include <system_error>
#include <thread>
#include <utility>

namespace fieldscope::core {

using namespace historydb;

namespace {

// Events decided per lookup: bounds the indexes held at once (a batch's bodies) and the rows held.
constexpr std::size_t kBulkBatch = 2000;
// Versions sent at once: the server stores them while the writer encodes the next ones.
constexpr std::size_t kSendRows = 100;
// A read at least this large is shared by two threads (readInTwo).
constexpr std::size_t kSharedReadEvents = 64, kSharedReadBytes = 256u << 10;

// Reading (indexing each object's text) is most of a version's cost and needs nothing of the
// store: a large read is shared with a second thread, split by bytes, while the core the
// database would use is idle. `range(from, to)` writes only its own events' results.
void readInTwo(std::size_t n, std::size_t bytes, const std::function<std::size_t(std::size_t)> &sizeOf,
               const std::function<void(std::size_t, std::size_t)> &range)
{
    std::size_t half = 0;
    if (n >= kSharedReadEvents && bytes >= kSharedReadBytes) {
        for (std::size_t sum = 0; half < n && sum < bytes / 2; ++half)
            sum += sizeOf(half);
    }
    if (half == 0 || half == n)
        return range(0, n);
    try {
        std::thread second(range, half, n);
        range(0, half);
        second.join();
    } catch (const std::system_error &) { // no thread to be had: this one reads the rest
        range(half, n);
    }
}

} // namespace

const char *HistoryStore::Impl::rejectionOf(const WatchEvent &ev, EventBody &body) const
{
    // What readers would refuse is not stored: a marked gap instead (as writeEvent).
    return ev.objectJson.size() > codec.maxVersionBytes() ? "an object larger than the per-version limit"
                                                          : readEventBody(ev, body);
}

std::vector<HistoryStore::Impl::ReadItem> HistoryStore::Impl::readEvents(const std::vector<HistoryWriteItem> &items,
                                                                         bool inTwo) const
{
    std::vector<ReadItem> out(items.size());
    std::size_t bytes = 0;
    std::vector<std::pair<std::size_t, std::size_t>> work; // (item, event), in order, up to the bound
    for (std::size_t i = 0; i < items.size() && bytes <= kReadAheadBytes; ++i) {
        if (items[i].gap)
            continue;
        std::size_t k = 0;
        for (; k < items[i].events.size() && bytes + items[i].events[k].objectJson.size() <= kReadAheadBytes; ++k) {
            bytes += items[i].events[k].objectJson.size();
            work.emplace_back(i, k);
        }
        out[i].bodies.resize(k);
        out[i].rejected.resize(k);
        if (k < items[i].events.size())
            break; // the rest is read inside the transaction
    }
    const auto readRange = [&](std::size_t from, std::size_t to) {
        for (std::size_t w = from; w < to; ++w) {
            const auto [i, k] = work[w];
            out[i].rejected[k] = rejectionOf(items[i].events[k], out[i].bodies[k]);
        }
    };
    if (!inTwo) {
        readRange(0, work.size());
        return out;
    }
    readInTwo(
        work.size(), bytes,
        [&](std::size_t w) { return items[work[w].first].events[work[w].second].objectJson.size(); }, readRange);
    return out;
}

void HistoryStore::Impl::startNextRead()
{
    if (!nextToRead || nextReader.joinable())
        return;
    Batch next = std::exchange(nextToRead, nullptr);
    nextRead = NextRead();
    try {
        nextReader = std::thread([this, next] {
            // A read that fails (out of memory) is dropped: the next write reads its items itself.
            try {
                NextRead r{next, readEvents(*next, false)};
                nextRead = std::move(r);
            } catch (...) {
                nextRead = NextRead();
            }
        });
    } catch (const std::system_error &) { // no thread to be had: the next write reads its own
    }
}

void HistoryStore::Impl::finishNextRead()
{
    nextToRead = nullptr;
    if (nextReader.joinable())
        nextReader.join();
}

bool HistoryStore::Impl::takeNextRead(const std::vector<HistoryWriteItem> &items)
{
    NextRead r = std::exchange(nextRead, NextRead());
    // The store held the batch since it was read, so no other vector can be at its address.
    if (r.items.get() != &items)
        return false;
    readAhead = std::move(r.read);
    for (const auto &item : readAhead)
        readBeforehand += std::int64_t(item.bodies.size());
    return true;
}

Status HistoryStore::Impl::writeEventsInBulk(const HistoryWriteItem &item, ReadItem *read, CommitReport &report,
                                             std::set<std::string> *replayed)
{
    const std::size_t readCount = read ? std::min(read->bodies.size(), item.events.size()) : 0;
    struct Release { // the batch's heads, on every way out
        Impl &d;
        ~Release()
        {
            d.holdBatchHeads = false;
            try { // keeping heads cold allocates; a destructor must not throw
                d.evictHeads();
            } catch (...) {
                d.dropHeads();
            }
        }
    } release{*this};
    for (std::size_t start = 0; start < item.events.size(); start += kBulkBatch) {
        const std::size_t n = std::min(kBulkBatch, item.events.size() - start);
        std::vector<EventBody> bodies(n);
        std::vector<const char *> rejected(n);
        // Read ahead: moved out batch by batch (a body's index becomes its object's cached head).
        const std::size_t ready = readCount > start ? std::min(n, readCount - start) : 0;
        for (std::size_t k = 0; k < ready; ++k) {
            bodies[k] = std::move(read->bodies[start + k]);
            rejected[k] = read->rejected[start + k];
        }
        if (ready < n) {
            std::size_t bytes = 0;
            for (std::size_t k = ready; k < n; ++k)
                bytes += item.events[start + k].objectJson.size();
            readInTwo(
                n - ready, bytes, [&](std::size_t k) { return item.events[start + ready + k].objectJson.size(); },
                [&](std::size_t from, std::size_t to) {
                    for (std::size_t k = ready + from; k < ready + to; ++k)
                        rejected[k] = rejectionOf(item.events[start + k], bodies[k]);
                });
        }
        // The rows held go out first: the previous batch's new objects get their ids, and
        // their heads can then be kept cold when evicted (keepCold).
        if (auto st = flushPending(); !st)
            return st;
        holdBatchHeads = false;
        evictHeads();
        if (auto st = lookUpBatch(bodies, rejected); !st)
            return st;
        holdBatchHeads = true;
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
    std::unordered_map<std::string, int> eventsOf; // per uid, this batch's events
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        if (rejected[k])
            continue;
        const std::string &uid = bodies[k].id.uid;
        ++eventsOf[uid];
        if (!heads.count(uid) && !coldHeads.count(uid) && pending.looked.emplace(uid, std::nullopt).second)
            uids.push_back(uid);
    }
    if (!uids.empty()) {
        auto rows = conn->headRows(uids);
        if (!rows)
            return rows.error();
        for (auto &row : *rows)
            pending.looked[row.uid] = std::move(row);
    }
    if (auto st = readHeadBodies(bodies, rejected); !st)
        return st;
    std::set<std::pair<std::string, std::string>> pairs;
    if (otherWriters || bulkDuplicateCheck)
        for (std::size_t k = 0; k < bodies.size(); ++k)
            if (!rejected[k] && !isTheHeadAlone(bodies[k].id, eventsOf) && !isNotInTheStore(bodies[k].id.uid)
                && (bulkDuplicateCheck || !isOurOwnHead(bodies[k].id.uid)))
                pairs.emplace(bodies[k].id.uid, bodies[k].id.rv);
    storedChecks += std::int64_t(pairs.size());
    if (!pairs.empty()) {
        auto stored = conn->storedVersions({pairs.begin(), pairs.end()});
        if (!stored)
            return stored.error();
        pending.stored.insert(stored->begin(), stored->end());
    }
    return success();
}

// An event whose version is its object's head, the object's only event in the batch: it is
// decided a duplicate against the head (alreadyStored) before the stored versions are asked.
// The second recorder of a burst meets every version that way; asking the store about them too
// cost it ~0.1 s of 10,000 (bench_teamhistory --burst-only). With a second event of the object
// in the batch, the head may move before the first is decided: that one is asked.
bool HistoryStore::Impl::isTheHeadAlone(const EventIdentity &id, const std::unordered_map<std::string, int> &eventsOf)
{
    if (auto n = eventsOf.find(id.uid); n == eventsOf.end() || n->second != 1)
        return false;
    if (auto cached = heads.find(id.uid); cached != heads.end())
        return cached->second.first.rv == id.rv;
    if (auto cold = coldHeads.find(id.uid); cold != coldHeads.end())
        return cold->second.first.rv == id.rv;
    const auto looked = pending.looked.find(id.uid);
    return looked != pending.looked.end() && looked->second && looked->second->rv == id.rv;
}

// A head this writer stored itself, and no other writer stored a version of its object since
// (Head::ownWrite). Four recorders of their own objects asked the store about every version
// they wrote, a query per batch of them: ~7 us of the machine's CPU per version
// (bench_teamhistory, 4 recorders).
bool HistoryStore::Impl::isOurOwnHead(const std::string &uid) const
{
    if (auto cached = heads.find(uid); cached != heads.end())
        return cached->second.first.ownWrite;
    const auto cold = coldHeads.find(uid);
    return cold != coldHeads.end() && cold->second.first.ownWrite;
}

// Looked up and not found: none of the object's versions is stored (the lock is ours).
bool HistoryStore::Impl::isNotInTheStore(const std::string &uid) const
{
    const auto looked = pending.looked.find(uid);
    return looked != pending.looked.end() && !looked->second;
}

// The bodies of the heads this batch will make deltas against (the event's RV is not the
// head's): looked-up heads, and cached ones whose body was never read (a head that only met
// duplicates), in one query for the batch: each head's rows from its last snapshot on, decoded
// here as loadVersion would. A run that does not decode is left to loadHeadBody (one query, and
// its own error).
Status HistoryStore::Impl::readHeadBodies(const std::vector<EventBody> &bodies,
                                          const std::vector<const char *> &rejected)
{
    std::vector<VersionRun> runs;
    std::unordered_map<std::int64_t, std::pair<std::string, VersionRun>> wanted; // by object id
    const auto want = [&](const std::string &uid, VersionRun run) {
        if (run.objectId > 0 && run.firstSeq >= 1
            && run.lastSeq - run.firstSeq < std::int64_t(VersionCodec::kMaxChain) * 2
            && wanted.emplace(run.objectId, std::make_pair(uid, run)).second)
            runs.push_back(run);
    };
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        if (rejected[k])
            continue;
        const EventIdentity &id = bodies[k].id;
        if (const auto it = pending.looked.find(id.uid); it != pending.looked.end()) {
            if (it->second && it->second->rv != id.rv)
                want(id.uid, {it->second->objectId, it->second->lastSnapshotSeq, it->second->lastSeq});
        } else if (const auto h = heads.find(id.uid); h != heads.end()) {
            const Head &head = h->second.first;
            if (head.bodyPending && head.rv != id.rv)
                want(id.uid, {head.objectId, head.seq - head.chain, head.seq});
        }
    }
    if (runs.empty())
        return success();
    auto rows = conn->versionRuns(runs, kInlineRowBytes);
    if (!rows)
        return rows.error();
    for (std::size_t b = 0, e = 0; b < rows->size(); b = e) {
        for (e = b + 1; e < rows->size() && (*rows)[e].objectId == (*rows)[b].objectId;)
            ++e;
        const auto it = wanted.find((*rows)[b].objectId);
        if (it == wanted.end())
            continue;
        std::size_t chainBytes = 0;
        auto text = decodeRun(&(*rows)[b], e - b, it->second.second, chainBytes);
        if (!text)
            continue;
        const std::string &uid = it->second.first;
        PendingWrites::LookedBody body{std::move(*text), std::int64_t(chainBytes), {}};
        for (std::size_t i = b; i < e; ++i) // a head kept cold decodes from these (keepCold)
            body.blobs.push_back(std::move((*rows)[i].data));
        if (pending.looked.count(uid)) {
            pending.lookedText[uid] = std::move(body);
        } else if (const auto h = heads.find(uid); h != heads.end() && h->second.first.bodyPending) {
            setHeadBody(h->second.first, std::move(body));
        }
    }
    return success();
}

// A run of rows (one object's, by seq) as the text of its last version: a lone snapshot is the
// stored text itself; a chain is decoded as loadVersion does. Nothing when the run is not the
// one asked for (a row missing or too large to be read inline) or does not decode.
std::optional<std::string> HistoryStore::Impl::decodeRun(const historydb::RunRow *rows, std::size_t n,
                                                         const historydb::VersionRun &run, std::size_t &chainBytes)
{
    if (rows[0].seq != run.firstSeq || !rows[0].snapshot || rows[n - 1].seq != run.lastSeq
        || std::int64_t(n) != run.lastSeq - run.firstSeq + 1)
        return std::nullopt;
    return decodeChain(
        n, [rows](std::size_t i) -> const std::string & { return rows[i].data; }, chainBytes);
}

std::optional<std::string> HistoryStore::Impl::decodeChain(std::size_t n,
                                                           const std::function<const std::string &(std::size_t)> &blob,
                                                           std::size_t &chainBytes)
{
    if (n == 1) {
        auto text = codec.decompress(blob(0));
        if (!text)
            return std::nullopt;
        chainBytes = text->size();
        return std::move(*text);
    }
    auto doc = codec.decodeSnapshot(blob(0), &chainBytes);
    if (!doc)
        return std::nullopt;
    for (std::size_t i = 1; i < n; ++i)
        if (!codec.applyDeltaBlob(*doc, blob(i), &chainBytes))
            return std::nullopt;
    return toJsonText(*doc);
}

void HistoryStore::Impl::setHeadBody(Head &head, PendingWrites::LookedBody body)
{
    if (head.index.build(std::move(body.text)) != JsonIndex::Status::Ok)
        head.index = JsonIndex(); // the next version is then a snapshot
    else
        head.blobs = std::move(body.blobs);
    head.chainTextBytes = body.chainTextBytes;
    head.index.shrinkToFit();
    const auto bytes = head.accountedBytes();
    headBytes += bytes - head.rawBytes;
    head.rawBytes = bytes;
    head.bodyPending = false;
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
                if (h.index.build(std::move(text->second.text)) == JsonIndex::Status::Ok) {
                    h.chainTextBytes = text->second.chainTextBytes;
                    h.blobs = std::move(text->second.blobs);
                    h.index.shrinkToFit();
                    h.rawBytes = h.accountedBytes();
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
    ++headsReadAlone;
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
    const auto bytes = head.accountedBytes();
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
