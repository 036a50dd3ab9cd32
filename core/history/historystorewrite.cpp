// HistoryStore: connection plumbing and the write transaction (retention: historystoreretention.cpp).
#include "core/history/historystore.h"
#include "core/history/historystore_p.h"
#include "core/history/secretredaction.h"

#include <algorithm>
#include <map>
#include <optional>

namespace fieldscope::core {

using namespace historydb;

HistoryStore::Impl::~Impl()
{
    finishNextRead(); // write() joins it on every way out; this is the last guard
}

std::string HistoryStore::Impl::lastMessage() const
{
    return conn ? conn->lastMessage() : "not open";
}

Error HistoryStore::Impl::error(const std::string &what) const
{
    return Error::make(conn && conn->connectionLost() ? ErrorCategory::Network : ErrorCategory::Io,
                       "history store: " + what + ": " + lastMessage(), path);
}

Status HistoryStore::Impl::loadCounters()
{
    Query q = this->q("SELECT COALESCE((SELECT MAX(id) FROM versions), 0), COALESCE((SELECT MAX(id) FROM gaps), 0),"
                      " COALESCE((SELECT value FROM meta WHERE key = 'total_bytes'), 0)");
    if (q.step() != kRow)
        return error("reading counters");
    nextOrd = std::max(q.i64(0), q.i64(1)) + 1;
    totalBytes = q.i64(2);
    return success();
}

namespace {

// The cached (or cold) heads of `changed` objects, out of their map, their LRU and its byte count.
template<class Heads>
void forgetChanged(Heads &heads, std::list<std::string> &lru, std::int64_t &bytes,
                   const std::set<std::int64_t> &changed)
{
    for (auto it = heads.begin(); it != heads.end();) {
        if (!changed.count(it->second.first.objectId)) {
            ++it;
            continue;
        }
        bytes -= it->second.first.rawBytes;
        lru.erase(it->second.second);
        it = heads.erase(it);
    }
}

} // namespace

Status HistoryStore::Impl::syncWithOtherWriters()
{
    auto version = conn->dataVersion();
    if (!version)
        return version.error();
    const std::int64_t now = *version;
    if (dataVersion == -1 || now != dataVersion) {
        otherWriters = otherWriters || dataVersion != -1;
        if (auto st = forgetHeadsOthersChanged(); !st)
            return st;
        if (auto st = loadCounters(); !st)
            return st;
    }
    dataVersion = now;
    return success();
}

// The heads of objects another writer stored versions of since our last transaction (their ords
// are at or after our next one: writers take turns), or all of them when it pruned. Dropping only
// those keeps four recorders of one store from reloading every head on every transaction.
Status HistoryStore::Impl::forgetHeadsOthersChanged()
{
    Query p = q("SELECT COALESCE((SELECT value FROM meta WHERE key = 'prunes'), 0)");
    if (p.step() != kRow)
        return error("prunes");
    const std::int64_t prunes = p.i64(0);
    p.reset();
    if (prunes != prunesSeen) {
        prunesSeen = prunes;
        dropHeads();
        return success();
    }
    if (heads.empty() && coldHeads.empty())
        return success();
    Query c = q("SELECT DISTINCT object_id FROM versions WHERE id >= ?1");
    c.bind(1, nextOrd);
    std::set<std::int64_t> changed;
    int rc;
    while ((rc = c.step()) == kRow)
        changed.insert(c.i64(0));
    if (rc != kDone)
        return error("changed objects");
    forgetChanged(heads, lru, headBytes, changed);
    forgetChanged(coldHeads, coldLru, coldBytes, changed);
    return success();
}

Result<std::string> HistoryStore::Impl::info(const char *key)
{
    Query q = this->q("SELECT value FROM store_info WHERE key = ?");
    q.bind(1, key);
    const int rc = q.step();
    if (rc == kRow)
        return std::string(q.blob(0));
    if (rc == kDone)
        return std::string();
    return error("store info");
}

Status HistoryStore::Impl::setInfo(const char *key, std::string_view value)
{
    Query q = this->q("INSERT INTO store_info(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2");
    q.bind(1, key).bindBlob(2, value);
    return q.step() == kDone ? success() : Status(error("store info"));
}

// The redaction key (made once per database) and the cluster the store belongs to: stamped on
// first use, checked on every later one.
Status HistoryStore::Impl::prepareIdentity(const HistoryOpenOptions &options)
{
    auto key = info("redaction_key");
    if (!key)
        return key.error();
    if (key->empty()) {
        *key = newRedactionKey();
        if (auto st = setInfo("redaction_key", *key); !st)
            return st;
    }
    redactionKey = *key;
    auto identity = info("cluster_identity");
    auto label = info("cluster_label");
    if (!identity || !label)
        return identity ? label.error() : identity.error();
    if (!options.clusterIdentity.empty() && identity->empty()) {
        if (auto st = setInfo("cluster_identity", options.clusterIdentity); !st)
            return st;
        if (auto st = setInfo("cluster_label", options.clusterLabel); !st)
            return st;
        *identity = options.clusterIdentity;
        *label = options.clusterLabel;
    } else if (!options.clusterIdentity.empty() && *identity != options.clusterIdentity) {
        return Error::make(ErrorCategory::Config, "the history store " + path + " belongs to another cluster ("
                                                      + (label->empty() ? std::string("unnamed") : *label)
                                                      + "), not to " + options.clusterLabel + "; it is left untouched");
    }
    clusterIdentity = *identity;
    clusterLabel = *label;
    if (options.recordSecretValues)
        if (auto st = setInfo("secret_values_recorded", "1"); !st)
            return st;
    return success();
}

Result<std::vector<HistoryGap>> HistoryStore::Impl::readGaps(Query &q)
{
    std::vector<HistoryGap> out;
    int rc;
    while ((rc = q.step()) == kRow)
        out.push_back({q.text(1), q.text(2), q.text(3), q.text(5), q.i64(4), q.i64(0)});
    if (rc != kDone)
        return error("gaps");
    return out;
}

Result<Json> HistoryStore::Impl::loadVersion(std::int64_t objectId, std::int64_t seq)
{
    // A recorder writes a snapshot at least every kMaxChain versions; a store someone else wrote
    // may not, so the chain read is bounded (twice that, for rows a copy or an older writer left).
    constexpr std::int64_t kMaxRowsRead = std::int64_t(2) * VersionCodec::kMaxChain;
    Query q = this->q("SELECT seq, snapshot, CASE WHEN length(data) <= ?4 THEN data END, length(data), id FROM versions"
                      " WHERE object_id = ?1 AND seq <= ?2 AND seq >= (SELECT MAX(seq) FROM versions WHERE"
                      " object_id = ?1 AND seq <= ?2 AND snapshot = 1) ORDER BY seq LIMIT ?3");
    q.bind(1, objectId).bind(2, seq).bind(3, kMaxRowsRead).bind(4, kInlineRowBytes);
    std::string holder;
    Json doc;
    std::int64_t got = -1, rows = 0;
    std::size_t chainBytes = 0;
    int rc;
    while ((rc = q.step()) == kRow) {
        ++rows;
        auto blob = rowBlob(q.blob(2), q.i64(3), q.i64(4), holder);
        if (!blob)
            return unreadableVersion(q.i64(0), blob.error());
        if (got < 0) {
            auto snap = codec.decodeSnapshot(*blob, &chainBytes);
            if (!snap)
                return unreadableVersion(q.i64(0), snap.error());
            doc = std::move(*snap);
        } else if (auto st = codec.applyDeltaBlob(doc, *blob, &chainBytes); !st) {
            return unreadableVersion(q.i64(0), st.error());
        }
        got = q.i64(0);
    }
    if (rc != kDone)
        return error("loadVersion");
    if (got != seq && rows == kMaxRowsRead)
        return Error::make(ErrorCategory::Parse, "version " + std::to_string(seq) + " is more than "
                                                     + std::to_string(kMaxRowsRead) + " deltas after its snapshot");
    if (got != seq) {
        // Stored, but with no snapshot before it (rows someone else wrote): unreadable, not absent.
        Query e = this->q("SELECT 1 FROM versions WHERE object_id = ? AND seq = ?");
        e.bind(1, objectId).bind(2, seq);
        if (e.step() == kRow)
            return Error::make(ErrorCategory::Parse,
                               "stored version " + std::to_string(seq) + " has no snapshot before it");
        return Error::make(ErrorCategory::NotFound, "version " + std::to_string(seq) + " is not stored");
    }
    return doc;
}

Result<std::string_view> HistoryStore::Impl::rowBlob(std::string_view inPage, std::int64_t length,
                                                     std::int64_t versionId, std::string &holder)
{
    if (length <= kInlineRowBytes)
        return inPage;
    // A zstd frame of the largest version the codec decodes, and its tag byte.
    const auto largest = std::int64_t(codec.maxVersionBytes() + codec.maxVersionBytes() / 128 + 1024);
    if (length > largest)
        return Error::make(ErrorCategory::Parse, "the stored row is " + std::to_string(length)
                                                     + " bytes, more than any version within the limit");
    Query one = q("SELECT data FROM versions WHERE id = ?");
    one.bind(1, versionId);
    if (one.step() != kRow)
        return error("version row");
    holder.assign(one.blob(0));
    return std::string_view(holder);
}

// ---- writing --------------------------------------------------------------------------------

namespace historydb {

namespace {

EventIdentity identityOf(const JsonIndex &ix)
{
    EventIdentity id;
    if (ix.empty())
        return id;
    id.apiVersion = ix.stringAt(ix.member(0, "apiVersion"));
    id.kind = ix.stringAt(ix.member(0, "kind"));
    if (const auto meta = ix.member(0, "metadata"); meta >= 0) {
        const auto m = std::uint32_t(meta);
        id.uid = ix.stringAt(ix.member(m, "uid"));
        id.rv = ix.stringAt(ix.member(m, "resourceVersion"));
        id.name = ix.stringAt(ix.member(m, "name"));
        id.namespace_ = ix.stringAt(ix.member(m, "namespace"));
    }
    return id;
}

std::string stringMember(const Json &object, const char *key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

EventIdentity identityOf(const Json &obj)
{
    EventIdentity id;
    id.apiVersion = stringMember(obj, "apiVersion");
    id.kind = stringMember(obj, "kind");
    if (obj.is_object())
        if (const auto meta = obj.find("metadata"); meta != obj.end()) {
            id.uid = stringMember(*meta, "uid");
            id.rv = stringMember(*meta, "resourceVersion");
            id.name = stringMember(*meta, "name");
            id.namespace_ = stringMember(*meta, "namespace");
        }
    return id;
}

} // namespace

} // namespace historydb

// One validating pass over the text, no DOM (JsonIndex); nlohmann only for what it does not
// model. Returns why the store cannot keep the object, or nullptr.
const char *HistoryStore::Impl::readEventBody(const WatchEvent &ev, EventBody &body) const
{
    if (body.index.build(ev.objectJson) == JsonIndex::Status::Ok) {
        body.id = identityOf(body.index);
    } else {
        auto parsed = parseJson(ev.objectJson);
        if (!parsed)
            return "an object that is not JSON";
        body.id = identityOf(*parsed);
        body.index = JsonIndex(); // stored as a snapshot, and so will the next version be
    }
    if (body.id.uid.empty())
        return "an object without metadata.uid";
    // Secret values stay off the disk unless the user opted in (core/history/secretredaction.h).
    if (isSecretObject(body.id.apiVersion, body.id.kind) && !recordSecretValues) {
        auto parsed = parseJson(ev.objectJson);
        if (!parsed)
            return "a Secret that is not JSON";
        redactSecret(*parsed, redactionKey);
        body.redacted = toJsonText(*parsed);
        if (body.index.build(*body.redacted) != JsonIndex::Status::Ok)
            body.index = JsonIndex();
    }
    return nullptr;
}

// Whether this version is stored already (counted as a skipped duplicate); `prev` is the
// object's head, nullptr for an object the store has not seen.
Result<bool> HistoryStore::Impl::alreadyStored(Head *prev, const EventIdentity &id, HistoryEventType type,
                                               CommitReport &report, std::set<std::string> *replayed)
{
    if (replayed) {
        if (prev && !replayed->count(id.uid)) {
            ++report.skippedDuplicates;
            return true;
        }
        replayed->insert(id.uid);
    }
    // A relist or restart delivers the state we already have: same uid, same RV, nothing new.
    if (prev && prev->rv == id.rv) {
        ++report.skippedDuplicates;
        // A relist found the object gone: the deletion's RV is unknown, so no version is invented;
        // the object is only marked deleted (the relist's gap covers the missing tombstone).
        if (type == HistoryEventType::Deleted && !prev->deleted) {
            if (auto st = flushPending(); !st) // its objects row may be held, or updated after this
                return st.error();
            Query del = q("UPDATE objects SET deleted = 1 WHERE id = ?");
            del.bind(1, prev->objectId);
            if (del.step() != kDone)
                return error("mark deleted");
            prev->deleted = true;
        }
        return true;
    }
    // A second recorder of the same cluster may have stored this version already, before others
    // (its events arrive on its own watch, at its own pace): never store it twice.
    if (prev && bulk && (otherWriters || bulkDuplicateCheck)) {
        if (!pending.stored.count({id.uid, id.rv}))
            return false;
        ++report.skippedDuplicates;
        return true;
    }
    // The row writer asks even for its own heads: a file made before two recorders were told
    // apart may have a plain index on uid + RV (historystoreopen.cpp), nothing to refuse a copy.
    if (prev && otherWriters) {
        Query seen = q("SELECT 1 FROM versions WHERE object_id = ? AND rv = ? LIMIT 1");
        seen.bind(1, prev->objectId).bind(2, id.rv);
        const int rc = seen.step();
        if (rc == kRow) {
            ++report.skippedDuplicates;
            return true;
        }
        if (rc != kDone)
            return error("duplicate check");
    }
    return false;
}

// The compressed blob to store: a delta against `prev` unless the chain is long, the deltas
// outweigh the snapshot, or this delta is large (more than half the object's text).
std::string HistoryStore::Impl::encodeVersion(const Head *prev, const JsonIndex &index, const std::string &text,
                                              bool &snapshot)
{
    snapshot = !prev || prev->chain + 1 >= VersionCodec::kMaxChain || prev->deltaBytes > prev->snapshotBytes;
    if (!snapshot) {
        // Never a chain its readers would refuse (VersionCodec's budget for a chain's text).
        const auto budget = std::int64_t(VersionCodec::kChainBudgetFactor * codec.maxVersionBytes());
        if (makeDeltaText(prev->index, index, text.size() / 2, deltaBuffer)
            && prev->chainTextBytes + std::int64_t(deltaBuffer.size()) <= budget)
            return codec.compress(deltaBuffer);
        snapshot = true;
    }
    return codec.compress(text); // the server's own bytes (Secrets: redacted): exact key order and numbers
}

// The objects row (created for a new object) and the versions row of `next`.
// The objects row (created for a new object) and the versions row of `next`. False when the
// database already holds this uid + resourceVersion (another recorder stored it: the unique key
// versions_by_rv refuses it, and nothing is written).
Result<bool> HistoryStore::Impl::insertVersion(const WatchScope &scope, const WatchEvent &ev, const EventIdentity &id,
                                               bool isNew, Head &next, bool snapshot, const std::string &blob,
                                               std::size_t textBytes)
{
    if (bulk) {
        if (auto st = holdVersion(scope, ev, id, isNew, next, snapshot, blob, textBytes); !st)
            return st.error();
        return true;
    }
    const std::string group = GroupVersion::parse(id.apiVersion).group;
    if (isNew) {
        Query ins = q("INSERT INTO objects(uid, api_group, api_version, kind, resource, namespace, name)"
                      " VALUES(?,?,?,?,?,?,?) RETURNING id");
        ins.bind(1, id.uid).bind(2, group).bind(3, id.apiVersion).bind(4, id.kind).bind(5, scope.resource);
        ins.bind(6, id.namespace_).bind(7, id.name);
        if (ins.step() != kRow)
            return error("insert object");
        next.objectId = ins.i64(0);
    }
    Query ver = q("INSERT INTO versions(id, object_id, seq, rv, event, observed_ms, scope, snapshot, raw_size, data,"
                  " recorder) VALUES(?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING");
    ver.bind(1, nextOrd).bind(2, next.objectId).bind(3, next.seq).bind(4, id.rv).bind(5, std::int64_t(ev.type));
    ver.bind(6, ev.observedAtMs).bind(7, scope.id).bind(8, std::int64_t(snapshot));
    ver.bind(9, std::int64_t(textBytes)).bindBlob(10, blob).bind(11, recorderId);
    if (ver.step() != kDone)
        return error("insert version");
    if (conn->changes() == 0) {
        ver.reset();
        return refusedAsStored(next.objectId, id.rv, next.seq);
    }
    ver.reset();

    Query upd = q("UPDATE objects SET version_count = version_count + 1, last_seq = ?, deleted = ?, api_version = ?,"
                  " kind = CASE WHEN ? = '' THEN kind ELSE ?4 END WHERE id = ?");
    upd.bind(1, next.seq)
        .bind(2, std::int64_t(next.deleted))
        .bind(3, id.apiVersion)
        .bind(4, id.kind)
        .bind(5, next.objectId);
    if (upd.step() != kDone)
        return error("update object");
    ++nextOrd;
    totalBytes += std::int64_t(blob.size());
    return true;
}

// The row the database refused was this version, stored already (another recorder's): not a
// head this writer had wrong, whose seq is taken by another version. That one is an error, the
// transaction rolled back whole and its heads dropped, never a version counted as a duplicate
// and lost.
Result<bool> HistoryStore::Impl::refusedAsStored(std::int64_t objectId, const std::string &rv, std::int64_t seq)
{
    Query seen = q("SELECT 1 FROM versions WHERE object_id = ? AND rv = ? LIMIT 1");
    seen.bind(1, objectId).bind(2, rv);
    const int rc = seen.step();
    if (rc == kRow)
        return false;
    if (rc != kDone)
        return error("duplicate check");
    return Error::make(ErrorCategory::Conflict,
                       "history store: version " + std::to_string(seq) + " of object " + std::to_string(objectId)
                           + " is stored with another resourceVersion than " + rv,
                       path);
}

Status HistoryStore::Impl::writeEvent(const WatchScope &scope, const WatchEvent &ev, CommitReport &report,
                                      std::set<std::string> *replayed)
{
    // What readers would refuse is not stored: a marked gap instead (FIELDSCOPE_MAX_VERSION_MIB).
    if (ev.objectJson.size() > codec.maxVersionBytes())
        return writeRejectedGap(scope, ev, "an object larger than the per-version limit", report);
    EventBody body;
    if (const char *why = readEventBody(ev, body))
        return writeRejectedGap(scope, ev, why, report);
    return writeParsedEvent(scope, ev, body, report, replayed);
}

// The row writer: each event's statements in turn, with its body read ahead when it was.
Status HistoryStore::Impl::writeEventsOneByOne(const HistoryWriteItem &item, std::size_t itemIndex,
                                               CommitReport &report, std::set<std::string> *replayed)
{
    ReadItem *read = itemIndex < readAhead.size() ? &readAhead[itemIndex] : nullptr;
    const std::size_t readCount = read ? std::min(read->bodies.size(), item.events.size()) : 0;
    for (std::size_t k = 0; k < item.events.size(); ++k) {
        const WatchEvent &ev = item.events[k];
        Status st = k >= readCount    ? writeEvent(item.scope, ev, report, replayed)
                  : read->rejected[k] ? writeRejectedGap(item.scope, ev, read->rejected[k], report)
                                      : writeParsedEvent(item.scope, ev, read->bodies[k], report, replayed);
        if (!st)
            return st;
    }
    return success();
}

Status HistoryStore::Impl::writeParsedEvent(const WatchScope &scope, const WatchEvent &ev, EventBody &body,
                                            CommitReport &report, std::set<std::string> *replayed)
{
    const EventIdentity &id = body.id;
    auto head = headFor(id.uid);
    if (!head)
        return head.error();
    Head *prev = *head;
    auto stored = alreadyStored(prev, id, ev.type, report, replayed);
    if (!stored)
        return stored.error();
    if (*stored)
        return success();

    if (prev && prev->bodyPending)
        if (auto st = loadHeadBody(*prev); !st)
            return st;
    const std::string &text = body.text(ev);
    bool snapshot = false;
    const std::string blob = encodeVersion(prev, body.index, text, snapshot);
    Head next;
    next.objectId = prev ? prev->objectId : 0;
    next.seq = prev ? prev->seq + 1 : 1;
    next.rv = id.rv;
    next.ownWrite = true;
    next.deleted = ev.type == HistoryEventType::Deleted;
    next.chain = snapshot ? 0 : prev->chain + 1;
    next.chainTextBytes = snapshot ? std::int64_t(text.size())
                                   : prev->chainTextBytes + std::int64_t(deltaBuffer.size());
    next.deltaBytes = snapshot ? 0 : prev->deltaBytes + std::int64_t(blob.size());
    next.snapshotBytes = snapshot ? std::int64_t(blob.size()) : prev->snapshotBytes;
    auto inserted = insertVersion(scope, ev, id, !prev, next, snapshot, blob, text.size());
    if (!inserted)
        return inserted.error();
    if (!*inserted) {
        ++report.skippedDuplicates;
        return success();
    }
    report.versions.push_back({id.uid, id.rv, next.seq});
    next.index = std::move(body.index);
    next.index.shrinkToFit();
    carryBlobs(prev, next, snapshot, blob);
    next.rawBytes = next.accountedBytes();
    if (prev) {
        // headFor() moved it to the front of the LRU already: update in place.
        headBytes += next.rawBytes - prev->rawBytes;
        *prev = std::move(next);
        evictHeads();
    } else {
        putHead(id.uid, std::move(next));
    }
    return success();
}

Status HistoryStore::Impl::writeGap(HistoryGap gap, CommitReport &report)
{
    if (auto st = flushPending(); !st) // the statements below wait for the held rows
        return st;
    Query g = q("INSERT INTO gaps(id, scope, from_rv, to_rv, observed_ms, reason) VALUES(?,?,?,?,?,?)");
    g.bind(1, nextOrd)
        .bind(2, gap.scope)
        .bind(3, gap.fromRv)
        .bind(4, gap.toRv)
        .bind(5, gap.observedAtMs)
        .bind(6, gap.reason);
    if (g.step() != kDone)
        return error("insert gap");
    gap.ord = nextOrd++;
    report.gaps.push_back(std::move(gap));
    return success();
}

// An object the store cannot keep is a marked gap in its scope, never a silent hole: from the
// scope's last resume point to the object's resourceVersion when one can be read.
Status HistoryStore::Impl::writeRejectedGap(const WatchScope &scope, const WatchEvent &ev, const char *why,
                                            CommitReport &report)
{
    if (auto st = flushPending(); !st) // the statements below wait for the held rows
        return st;
    ++report.rejected;
    Query last = q("SELECT last_rv FROM scopes WHERE scope = ?");
    last.bind(1, scope.id);
    const int rc = last.step();
    if (rc != kRow && rc != kDone)
        return error("resume point");
    const std::string from = rc == kRow ? last.text(0) : std::string();
    last.reset();
    std::string rv;
    if (auto parsed = parseJson(ev.objectJson); parsed && parsed->is_object())
        rv = identityOf(*parsed).rv;
    return writeGap(HistoryGap{scope.id, from, rv, std::string("rejected ") + why, ev.observedAtMs, 0}, report);
}

// The gap of a recording run's first list (HistoryWriteItem::resumeGapReason). Opened with an
// unknown end when the list starts, so it sorts before the versions the list delivers; closed
// (or dropped, when nothing was missed) when the list's resourceVersion is known.
Status HistoryStore::Impl::writeResumeGap(const HistoryWriteItem &item, CommitReport &report)
{
    if (auto st = flushPending(); !st) // the statements below wait for the held rows
        return st;
    const std::string &scope = item.scope.id;
    Query last = q("SELECT last_rv FROM scopes WHERE scope = ?");
    last.bind(1, scope);
    int rc = last.step();
    if (rc != kRow && rc != kDone)
        return error("resume point");
    const std::string lastRv = rc == kRow ? last.text(0) : std::string();
    last.reset();
    Query open =
        q("SELECT id, from_rv FROM gaps WHERE scope = ? AND to_rv = '' AND reason = ? ORDER BY id DESC LIMIT 1");
    open.bind(1, scope).bind(2, item.resumeGapReason);
    rc = open.step();
    if (rc != kRow && rc != kDone)
        return error("open gap");
    const std::int64_t openId = rc == kRow ? open.i64(0) : 0;
    const std::string openFrom = rc == kRow ? open.text(1) : std::string();
    open.reset();
    const std::int64_t at = item.events.empty() ? 0 : item.events.front().observedAtMs;
    const std::string &listRv = item.scopeResourceVersion;
    if (listRv.empty()) { // the list starts: open the gap once, if anything was recorded before
        if (openId || lastRv.empty())
            return success();
        return writeGap(HistoryGap{scope, lastRv, std::string(), item.resumeGapReason, at, 0}, report);
    }
    if (!openId) { // the whole list came in this item: the gap goes before its versions
        if (lastRv.empty() || lastRv == listRv)
            return success();
        return writeGap(HistoryGap{scope, lastRv, listRv, item.resumeGapReason, at, 0}, report);
    }
    if (openFrom == listRv) { // the list found the scope where the last run left it
        Query drop = q("DELETE FROM gaps WHERE id = ?");
        drop.bind(1, openId);
        return drop.step() == kDone ? success() : error("drop gap");
    }
    Query close = q("UPDATE gaps SET to_rv = ? WHERE id = ?");
    close.bind(1, listRv).bind(2, openId);
    if (close.step() != kDone)
        return error("close gap");
    report.gaps.push_back(HistoryGap{scope, openFrom, listRv, item.resumeGapReason, at, openId}); // readers refresh it
    return success();
}

Status HistoryStore::Impl::setScopeRv(const std::string &scope, const std::string &rv)
{
    if (auto st = flushPending(); !st) // the statements below wait for the held rows
        return st;
    Query s = q("INSERT INTO scopes(scope, last_rv) VALUES(?1, ?2) ON CONFLICT(scope) DO UPDATE SET last_rv = ?2");
    s.bind(1, scope).bind(2, rv);
    return s.step() == kDone ? success() : Status(error("scope rv"));
}

Status HistoryStore::Impl::beginWrite()
{
    if (readOnly)
        return Error::make(ErrorCategory::Io, "history store opened read-only");
    if (auto st = conn->beginWrite(); !st) {
        (void)exec("ROLLBACK");
        return st;
    }
    if (auto st = syncWithOtherWriters(); !st) {
        (void)exec("ROLLBACK");
        return st;
    }
    return success();
}

Status HistoryStore::Impl::commitWrite(std::int64_t versions)
{
    Query tb = q("INSERT INTO meta(key, value) VALUES('total_bytes', ?1) ON CONFLICT(key) DO UPDATE SET value = ?1");
    tb.bind(1, totalBytes);
    if (tb.step() != kDone)
        return error("total bytes");
    tb.reset();
    auto version = conn->beforeCommit(versions);
    if (version && *version < 0)
        version = conn->dataVersion();
    if (!version)
        return version.error();
    // Our own commit is not another writer's: what the next transaction compares against.
    dataVersion = *version;
    return exec("COMMIT");
}

Result<CommitReport> HistoryStore::write(const std::vector<HistoryWriteItem> &items)
{
    return m_d->write(items, nullptr);
}

Result<CommitReport> HistoryStore::write(const Batch &items, Batch next)
{
    if (!items)
        return Error::make(ErrorCategory::Invalid, "a history write of no batch");
    return m_d->write(*items, next == items ? nullptr : std::move(next));
}

Result<CommitReport> HistoryStore::Impl::write(const std::vector<HistoryWriteItem> &items, Batch next)
{
    // A database that writes in bulk sends the versions after deciding them all; one of them
    // stored already (out of the duplicate checks' sight: another scope's copy of an older
    // version) fails that bulk write whole, which is then done again row by row, as before. So
    // does any other failure of a bulk write (a value the bulk statements read otherwise than a
    // bound parameter, say): the row writer's outcome, error or not, is the one reported.
    // Not retried: a transaction that never began (the lock, a read-only store) or a connection
    // that is gone; the row writer would fail the same way.
    bulk = conn->writesInBulk();
    // Before the transaction: writers take turns on its lock. Read already when the last write
    // was told these items come next.
    readBeforehand = 0;
    if (!takeNextRead(items))
        readAhead = readEvents(items, true);
    struct JoinNextRead {
        Impl &d;
        ~JoinNextRead() { d.finishNextRead(); }
    } joinNextRead{*this};
    // The next write is read on a core of its own while this one is decided, sent and committed
    // (measured: bench/README.md, bench_teamhistory's "no write named next" row).
    nextToRead = std::move(next);
    startNextRead();
    writeBegan = false;
    auto r = writeItems(items);
    readAhead.clear();
    const bool retry = !r && bulk && writeBegan && r.error().category != ErrorCategory::Network
                    && !conn->connectionLost();
    if (r)
        r->inBulk = bulk;
    if (retry) {
        if (r.error().category == ErrorCategory::Conflict)
            bulkDuplicateCheck = true;
        bulk = false;
        std::string why = r.error().describe();
        r = writeItems(items);
        if (r)
            r->bulkFallback = std::move(why);
    }
    // The row writer met a head it had wrong (refusedAsStored): the rollback dropped the heads;
    // once more, from the database's.
    if (!r && !bulk && writeBegan && r.error().category == ErrorCategory::Conflict)
        r = writeItems(items);
    bulk = false;
    if (r)
        r->readBeforehand = readBeforehand;
    return r;
}

Result<CommitReport> HistoryStore::Impl::writeItems(const std::vector<HistoryWriteItem> &items)
{
    if (auto st = beginWrite(); !st)
        return st.error();
    writeBegan = true;
    headsReadAlone = 0;
    storedChecks = 0;
    CommitReport report;
    const std::int64_t ordBefore = nextOrd;
    const std::int64_t bytesBefore = totalBytes;
    auto fail = [&](const Error &e) -> Result<CommitReport> {
        (void)exec("ROLLBACK");
        // The cache may hold heads of rolled-back versions; the database is the truth.
        dropHeads();
        clearPending();
        nextOrd = ordBefore;
        totalBytes = bytesBefore;
        dataVersion = -1; // commitWrite may have taken our rolled-back commit as seen
        return e;
    };
    for (std::size_t itemIndex = 0; itemIndex < items.size(); ++itemIndex) {
        const HistoryWriteItem &item = items[itemIndex];
        const std::string scopeId = item.scope.id;
        if (item.gap) {
            HistoryGap gap = *item.gap;
            gap.scope = scopeId;
            if (auto st = writeGap(std::move(gap), report); !st)
                return fail(st.error());
        }
        if (!item.gap && !item.resumeGapReason.empty())
            if (auto st = writeResumeGap(item, report); !st)
                return fail(st.error());
        const std::size_t storedBefore = report.versions.size();
        if (!item.gap) {
            std::set<std::string> replayed;
            std::set<std::string> *only = item.onlyNewObjects ? &replayed : nullptr;
            if (bulk) {
                ReadItem *read = itemIndex < readAhead.size() ? &readAhead[itemIndex] : nullptr;
                if (auto st = writeEventsInBulk(item, read, report, only); !st)
                    return fail(st.error());
            } else if (auto st = writeEventsOneByOne(item, itemIndex, report, only); !st) {
                return fail(st.error());
            }
        }
        // The resume point: an explicit list/bookmark RV, else the last watch event's RV
        // (synthetic ADDED/LISTED events are not delivered in RV order, so they do not count; client-go's
        // reflector waits for a non-ADDED event too: staging/src/k8s.io/client-go/tools/cache/reflector.go).
        std::string scopeRv = item.scopeResourceVersion;
        if (scopeRv.empty() && !item.gap && !item.onlyNewObjects && !item.events.empty()
            && item.events.back().type != HistoryEventType::Listed && item.events.back().type != HistoryEventType::Added
            && report.versions.size() > storedBefore)
            scopeRv = report.versions.back().resourceVersion;
        if (!scopeRv.empty())
            if (auto st = setScopeRv(scopeId, scopeRv); !st)
                return fail(st.error());
    }
    if (auto st = flushPending(); !st)
        return fail(st.error());
    clearPending();
    if (auto st = commitWrite(std::int64_t(report.versions.size() + report.gaps.size())); !st)
        return fail(st.error());
    report.headsReadAlone = headsReadAlone;
    report.storedChecks = storedChecks;
    return report;
}

} // namespace fieldscope::core
