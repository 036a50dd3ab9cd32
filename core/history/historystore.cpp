#include "core/history/historystore.h"

#include "core/base/jsonread.h"
#include "core/base/privatefiles.h"
#include "core/history/historystore_p.h"
#include "core/history/secretredaction.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace fieldscope::core {

using namespace historydb;

namespace {

// readObject's columns, in its order.
constexpr const char *kObjectColumns =
    "SELECT id, uid, api_group, api_version, kind, resource, namespace, name, version_count, pruned_count, deleted";

HistoryObject readObject(Query &q)
{
    HistoryObject o;
    o.id = q.i64(0);
    o.ref.uid = q.text(1);
    o.ref.apiVersion = q.text(3);
    o.ref.kind = q.text(4);
    o.resource = q.text(5);
    o.ref.namespace_ = q.text(6);
    o.ref.name = q.text(7);
    o.versionCount = q.i64(8);
    o.prunedCount = q.i64(9);
    o.deleted = q.i64(10) != 0;
    return o;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

// Offline there is no discovery, so RESOURCE matches the plural, the Kind, or the Kind lower-cased
// (what people type: "deployment/web", "deployments/web", "Deployment/web"), optionally ".group".
bool resourceMatches(const std::string &want, const HistoryObject &o, const std::string &group)
{
    if (want.empty())
        return true;
    std::string name = lower(want);
    std::string wantGroup;
    if (auto dot = name.find('.'); dot != std::string::npos) {
        wantGroup = name.substr(dot + 1);
        name.resize(dot);
        if (wantGroup != lower(group))
            return false;
    }
    const std::string kind = lower(o.ref.kind);
    return name == lower(o.resource) || name == kind || name + "s" == lower(o.resource) || name == kind + "s";
}

} // namespace

HistoryStore::HistoryStore(std::unique_ptr<Impl> impl) : m_d(std::move(impl)) {}
HistoryStore::~HistoryStore() = default;

const std::string &HistoryStore::path() const
{
    return m_d->path;
}

Result<std::vector<HistoryObject>> HistoryStore::findObjects(const ObjectQuery &query)
{
    // A named lookup (every audit event names one) must use objects_by_name: `?1 = '' OR name = ?1`
    // would scan the whole table.
    std::string sql = std::string(kObjectColumns) + " FROM objects"
                    + (query.name.empty() ? " WHERE ?1 = ''" : " WHERE name = ?1")
                    + " AND (?2 OR namespace = ?3) AND (?4 = '' OR uid = ?4) ORDER BY id";
    Query q = m_d->qDynamic(sql);
    q.bind(1, query.name).bind(2, std::int64_t(query.allNamespaces)).bind(3, query.namespace_).bind(4, query.uid);
    std::vector<HistoryObject> out;
    int rc;
    while ((rc = q.step()) == kRow) {
        HistoryObject o = readObject(q);
        if (resourceMatches(query.resource, o, q.text(2)))
            out.push_back(std::move(o));
    }
    if (rc != kDone)
        return m_d->error("findObjects");
    return out;
}

Result<std::vector<std::string>> HistoryStore::scopeIds()
{
    Query q = m_d->q("SELECT scope FROM scopes ORDER BY scope");
    std::vector<std::string> out;
    int rc;
    while ((rc = q.step()) == kRow)
        out.push_back(q.text(0));
    if (rc != kDone)
        return m_d->error("scopes");
    return out;
}

Result<std::vector<HistoryObject>> HistoryStore::allObjects()
{
    ObjectQuery all;
    all.allNamespaces = true;
    return findObjects(all);
}

namespace {

std::string versionRowsQuery(bool hasRecorderColumn, const char *orderAndLimit)
{
    return std::string("SELECT v.id, v.seq, v.rv, v.event, v.observed_ms, v.scope, v.snapshot, length(v.data),"
                       " v.raw_size, o.uid, ")
         + (hasRecorderColumn ? "COALESCE((SELECT name FROM recorders WHERE id = v.recorder), '')" : "''")
         + " FROM versions v JOIN objects o ON o.id = v.object_id WHERE v.object_id = ? " + orderAndLimit;
}

VersionInfo versionRow(Query &q, std::int64_t objectId)
{
    VersionInfo v;
    v.objectId = objectId;
    v.ord = q.i64(0);
    v.seq = q.i64(1);
    v.resourceVersion = q.text(2);
    v.eventType = HistoryEventType(q.i64(3));
    v.observedAtMs = q.i64(4);
    v.scope = q.text(5);
    v.snapshot = q.i64(6) != 0;
    v.storedBytes = q.i64(7);
    v.rawBytes = q.i64(8);
    v.uid = q.text(9);
    v.recorder = q.text(10);
    return v;
}

} // namespace

Result<std::optional<VersionInfo>> HistoryStore::lastVersion(std::int64_t objectId)
{
    Query q = m_d->qDynamic(versionRowsQuery(m_d->hasRecorderColumn, "ORDER BY v.seq DESC LIMIT 1"));
    q.bind(1, objectId);
    const int rc = q.step();
    if (rc == kDone)
        return std::optional<VersionInfo>();
    if (rc != kRow)
        return m_d->error("lastVersion");
    return std::optional<VersionInfo>(versionRow(q, objectId));
}

Result<std::vector<VersionInfo>> HistoryStore::versions(std::int64_t objectId)
{
    Query q = m_d->qDynamic(versionRowsQuery(m_d->hasRecorderColumn, "ORDER BY v.seq"));
    q.bind(1, objectId);
    std::vector<VersionInfo> out;
    int rc;
    while ((rc = q.step()) == kRow) {
        out.push_back(versionRow(q, objectId));
    }
    if (rc != kDone)
        return m_d->error("versions");
    return out;
}

namespace {

// Lists of keys go out in statements of 1, 8 or 64 entries, so each shape is prepared once; the
// slots past the list repeat its first entry, and the statement's last parameter, the number of
// real entries, keeps the database from looking them up (`WHERE q.column1 < n`).
constexpr std::size_t kBatchShapes[] = {1, 8, 64};

std::size_t batchShape(std::size_t remaining)
{
    for (const std::size_t shape : kBatchShapes)
        if (remaining <= shape)
            return shape;
    return kBatchShapes[std::size(kBatchShapes) - 1];
}

// `(VALUES (0, ?1, ?2), (1, ?3, ?4), ...) AS q`: SQLite and PostgreSQL both name its columns
// column1, column2, ...; `cast` wraps each parameter (PostgreSQL infers a bare one as text).
std::string valuesTable(std::size_t rows, int perRow, const char *cast)
{
    std::string out = "(VALUES ";
    int param = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        out += (r ? ", (" : "(") + std::to_string(r);
        for (int c = 0; c < perRow; ++c)
            out += *cast ? std::string(", CAST(?") + std::to_string(++param) + " AS " + cast + ")"
                         : ", ?" + std::to_string(++param);
        out += ')';
    }
    return out + ") AS q";
}

// `WHERE` of a list statement: only the real entries' slots (the padded ones repeat the first).
std::string realEntriesOnly(std::size_t shape, int perEntry)
{
    return " WHERE q.column1 < CAST(?" + std::to_string(std::size_t(perEntry) * shape + 1) + " AS BIGINT)";
}

// One statement per chunk of at most 64 of `count` entries, in one of kBatchShapes: make(shape)
// prepares it, bind(q, first, entry) binds a slot's perEntry parameters from `first` + 1 (a padded
// slot repeats the chunk's first entry), onRow(q, entry) takes each row, whose column `slotColumn`
// is its slot, and fail() names the error while the statement still holds it.
template<class Make, class Bind, class OnRow, class Fail>
Status forEachListChunk(std::size_t count, int perEntry, int slotColumn, Make make, Bind bind, OnRow onRow, Fail fail)
{
    for (std::size_t from = 0; from < count;) {
        const std::size_t n = std::min(count - from, kBatchShapes[std::size(kBatchShapes) - 1]);
        const std::size_t shape = batchShape(n);
        Query q = make(shape);
        for (std::size_t k = 0; k < shape; ++k)
            bind(q, int(k) * perEntry, from + (k < n ? k : 0));
        q.bind(int(shape) * perEntry + 1, std::int64_t(n));
        int rc;
        while ((rc = q.step()) == kRow)
            if (const auto k = std::size_t(q.i64(slotColumn)); k < n)
                onRow(q, from + k);
        if (rc != kDone)
            return fail();
        from += n;
    }
    return success();
}

bool isNamedLookup(const ObjectQuery &q)
{
    return !q.name.empty() && !q.allNamespaces && q.uid.empty();
}

} // namespace

Result<std::vector<std::vector<HistoryObject>>> HistoryStore::findObjects(const std::vector<ObjectQuery> &queries)
{
    std::vector<std::vector<HistoryObject>> out(queries.size());
    std::vector<std::size_t> named;
    for (std::size_t i = 0; i < queries.size(); ++i) {
        if (isNamedLookup(queries[i])) {
            named.push_back(i);
            continue;
        }
        auto alone = findObjects(queries[i]);
        if (!alone)
            return alone.error();
        out[i] = std::move(*alone);
    }
    // kObjectColumns' names are the objects table's own: none is also a column of q.
    const auto make = [&](std::size_t shape) {
        return m_d->qDynamic(std::string(kObjectColumns) + ", q.column1 FROM " + valuesTable(shape, 2, "")
                             + " JOIN objects ON name = q.column2 AND namespace = q.column3" + realEntriesOnly(shape, 2)
                             + " ORDER BY q.column1, id");
    };
    const auto bind = [&](Query &q, int first, std::size_t e) {
        q.bind(first + 1, queries[named[e]].name).bind(first + 2, queries[named[e]].namespace_);
    };
    const auto onRow = [&](Query &q, std::size_t e) {
        HistoryObject o = readObject(q);
        if (resourceMatches(queries[named[e]].resource, o, q.text(2)))
            out[named[e]].push_back(std::move(o));
    };
    const auto fail = [&]() -> Status { return m_d->error("findObjects"); };
    if (auto st = forEachListChunk(named.size(), 2, 11, make, bind, onRow, fail); !st)
        return st.error();
    return out;
}

Result<std::vector<std::vector<VersionInfo>>>
HistoryStore::versionsAfter(const std::vector<std::pair<std::int64_t, std::int64_t>> &after)
{
    std::vector<std::vector<VersionInfo>> out(after.size());
    // The one-object query's columns, its WHERE replaced by the list, then the slot.
    const std::string columns = versionRowsQuery(m_d->hasRecorderColumn, "");
    const auto make = [&](std::size_t shape) {
        return m_d->qDynamic(columns.substr(0, columns.find(" FROM versions v")) + ", q.column1 FROM "
                             + valuesTable(shape, 2, "BIGINT")
                             + " JOIN versions v ON v.object_id = q.column2 AND v.seq > q.column3"
                               " JOIN objects o ON o.id = v.object_id"
                             + realEntriesOnly(shape, 2) + " ORDER BY q.column1, v.seq");
    };
    const auto bind = [&](Query &q, int first, std::size_t e) {
        q.bind(first + 1, after[e].first).bind(first + 2, after[e].second);
    };
    const auto onRow = [&](Query &q, std::size_t e) { out[e].push_back(versionRow(q, after[e].first)); };
    const auto fail = [&]() -> Status { return m_d->error("versions"); };
    if (auto st = forEachListChunk(after.size(), 2, 11, make, bind, onRow, fail); !st)
        return st.error();
    return out;
}

namespace {

// A gap a LIST ended says "versions may be missing here" for every object of its scope. For an
// object that list found unchanged none are: every write changes the resourceVersion, so the
// list would have delivered a new version, recorded as Listed. Nothing of the object recorded
// between such a gap and the next one means the list saw it unchanged: the gap is left out of
// its history. Gaps without a list at their end (recorder overflow, end unknown) always stay.
// An object a list found gone (`goneUnrecorded`: no Deleted version, only the mark) keeps the
// gaps up to the one that list ended, where its deletion happened; none after.
void dropGapsTheListSawThrough(const std::vector<VersionInfo> &versions, bool goneUnrecorded,
                               std::vector<HistoryGap> &gaps)
{
    std::vector<HistoryGap> kept;
    for (std::size_t i = 0; i < gaps.size(); ++i) {
        const HistoryGap &gap = gaps[i];
        const auto next = std::find_if(versions.begin(), versions.end(),
                                       [&](const VersionInfo &v) { return v.ord > gap.ord; });
        if (next == versions.end() && goneUnrecorded) {
            kept.push_back(gap);
            if (gap.endsWithList())
                break;
            continue;
        }
        const std::int64_t nextGapOrd = i + 1 < gaps.size() ? gaps[i + 1].ord : INT64_MAX;
        const bool listSawAChange = next != versions.end() && next->ord < nextGapOrd
                                 && next->eventType == HistoryEventType::Listed;
        if (!gap.endsWithList() || listSawAChange)
            kept.push_back(gap);
    }
    gaps.swap(kept);
}

} // namespace

Result<std::vector<HistoryEntry>> HistoryStore::history(std::int64_t objectId)
{
    return history(objectId, 0, nullptr);
}

Result<std::vector<HistoryEntry>> HistoryStore::history(std::int64_t objectId, std::int64_t maxVersions,
                                                        std::int64_t *omitted)
{
    if (omitted)
        *omitted = 0;
    Result<std::vector<VersionInfo>> vs = std::vector<VersionInfo>();
    if (maxVersions > 0) {
        Query q = m_d->qDynamic(versionRowsQuery(m_d->hasRecorderColumn, "ORDER BY v.seq DESC LIMIT ?"));
        q.bind(1, objectId).bind(2, maxVersions);
        int rc;
        while ((rc = q.step()) == kRow)
            vs->push_back(versionRow(q, objectId));
        if (rc != kDone)
            return m_d->error("versions");
        std::reverse(vs->begin(), vs->end());
        if (std::int64_t(vs->size()) == maxVersions && omitted) {
            Query c = m_d->q("SELECT COUNT(*) FROM versions WHERE object_id = ?");
            c.bind(1, objectId);
            if (c.step() != kRow)
                return m_d->error("count versions");
            *omitted = c.i64(0) - maxVersions;
        }
    } else {
        vs = versions(objectId);
    }
    if (!vs)
        return vs.error();
    Query oq = m_d->q("SELECT pruned_count, deleted FROM objects WHERE id = ?");
    oq.bind(1, objectId);
    if (oq.step() != kRow)
        return Error::make(ErrorCategory::NotFound, "no such object in the history store");
    const std::int64_t pruned = oq.i64(0);
    const bool deleted = oq.i64(1) != 0;
    oq.reset();

    std::vector<HistoryEntry> out;
    if (pruned > 0)
        out.push_back({HistoryEntry::Kind::Pruned, {}, {}, pruned});
    if (vs->empty())
        return out;
    // Gaps of the scopes this object was seen through, from its first kept version on; after the
    // tombstone nothing can be missing for it.
    const std::int64_t firstOrd = vs->front().ord;
    // A watched deletion is a version; a deletion a relist found is only a mark (its RV unknown).
    const bool tombstoneRecorded = vs->back().eventType == HistoryEventType::Deleted;
    const std::int64_t lastOrd = deleted && tombstoneRecorded ? vs->back().ord : INT64_MAX;
    std::set<std::string> scopes;
    for (const auto &v : *vs)
        scopes.insert(v.scope);
    std::vector<HistoryGap> gapRows;
    // Only the gaps among the listed versions are read, and not without end: a store someone else
    // wrote may hold a million gaps for one scope.
    constexpr std::int64_t kMaxGapsListed = 100000;
    Query gq = m_d->q("SELECT id, scope, from_rv, to_rv, observed_ms, reason FROM gaps WHERE scope = ? AND id > ?"
                      " AND id < ? ORDER BY id LIMIT ?");
    for (const auto &scope : scopes) {
        gq.bind(1, scope).bind(2, firstOrd).bind(3, lastOrd).bind(4, kMaxGapsListed);
        auto g = m_d->readGaps(gq);
        if (!g)
            return g.error();
        gq.reset();
        for (auto &gap : *g)
            gapRows.push_back(std::move(gap));
    }
    std::sort(gapRows.begin(), gapRows.end(), [](const auto &a, const auto &b) { return a.ord < b.ord; });
    dropGapsTheListSawThrough(*vs, deleted && !tombstoneRecorded, gapRows);
    auto gi = gapRows.begin();
    for (auto &v : *vs) {
        for (; gi != gapRows.end() && gi->ord < v.ord; ++gi)
            out.push_back({HistoryEntry::Kind::Gap, {}, *gi, 0});
        out.push_back({HistoryEntry::Kind::Version, std::move(v), {}, 0});
    }
    for (; gi != gapRows.end(); ++gi)
        out.push_back({HistoryEntry::Kind::Gap, {}, *gi, 0});
    return out;
}

Result<Json> HistoryStore::loadVersion(std::int64_t objectId, std::int64_t seq)
{
    return m_d->loadVersion(objectId, seq);
}

Result<std::vector<Json>> HistoryStore::loadAllVersions(std::int64_t objectId)
{
    std::vector<Json> out;
    if (auto st = forEachVersion(objectId,
                                 [&](std::int64_t, const Json &object) {
                                     out.push_back(object);
                                     return true;
                                 });
        !st)
        return st.error();
    return out;
}

Status HistoryStore::forEachVersion(std::int64_t objectId,
                                    const std::function<bool(std::int64_t, const Json &)> &callback)
{
    Status failed = success();
    auto st = forEachVersion(objectId, callback, [&](std::int64_t seq, const std::string &why) {
        failed = Error::make(ErrorCategory::Parse, "version " + std::to_string(seq) + " of object "
                                                       + std::to_string(objectId) + " cannot be read: " + why);
        return false;
    });
    return st ? failed : st;
}

namespace {

// One object's chain while it is walked: the decoded current version, or why it cannot be.
struct ChainState {
    Json current;
    std::size_t chainBytes = 0;
    bool started = false; // a version was read (a delta needs one before it)
    std::string broken;   // non-empty: the chain cannot be read until the next snapshot
};

// A row that cannot even be fetched (larger than any readable version): the chain is broken here.
std::string breakChain(ChainState &chain, const std::string &why)
{
    chain.broken = why;
    chain.started = true;
    chain.current = Json();
    return why;
}

// Decodes one row onto `chain`; an empty result means it is readable (chain.current holds it).
std::string decodeRow(VersionCodec &codec, ChainState &chain, bool snapshot, std::string_view blob)
{
    if (snapshot) {
        chain.broken.clear();
        auto snap = codec.decodeSnapshot(blob, &chain.chainBytes);
        if (!snap)
            chain.broken = snap.error().message;
        else
            chain.current = std::move(*snap);
    } else if (!chain.broken.empty()) {
        chain.broken = "a delta on an earlier version that cannot be read";
    } else if (!chain.started) {
        chain.broken = "a delta with no snapshot before it";
    } else if (auto st = codec.applyDeltaBlob(chain.current, blob, &chain.chainBytes); !st) {
        chain.broken = st.error().message;
    }
    chain.started = true;
    if (!chain.broken.empty())
        chain.current = Json();
    return chain.broken;
}

} // namespace

Status HistoryStore::forEachVersion(std::int64_t objectId,
                                    const std::function<bool(std::int64_t, const Json &)> &callback,
                                    const UnreadableVisit &onUnreadable, std::int64_t fromSeq)
{
    // In pages: a PostgreSQL result is held whole by the client, and an object may have a
    // million rows someone else wrote.
    constexpr std::int64_t kPage = 256;
    Query q = m_d->q("SELECT seq, snapshot, CASE WHEN length(data) <= ? THEN data END, length(data), id FROM versions"
                     " WHERE object_id = ? AND seq > ? ORDER BY seq LIMIT ?");
    std::string holder;
    ChainState chain;
    std::int64_t after = INT64_MIN, inPage = 0;
    if (fromSeq > 0) { // from the snapshot fromSeq builds on
        Query s =
            m_d->q("SELECT COALESCE(MAX(seq), 0) FROM versions WHERE object_id = ? AND seq <= ? AND snapshot = 1");
        s.bind(1, objectId).bind(2, fromSeq);
        if (s.step() != kRow)
            return m_d->error("snapshot before");
        if (s.i64(0) > 0)
            after = s.i64(0) - 1;
    }
    q.bind(1, Impl::kInlineRowBytes).bind(2, objectId).bind(3, after).bind(4, kPage);
    int rc;
    while ((rc = q.step()) == kRow || (rc == kDone && inPage == kPage)) {
        if (rc == kDone) {
            q.reset();
            q.bind(1, Impl::kInlineRowBytes).bind(2, objectId).bind(3, after).bind(4, kPage);
            inPage = 0;
            continue;
        }
        ++inPage;
        after = q.i64(0);
        auto blob = m_d->rowBlob(q.blob(2), q.i64(3), q.i64(4), holder);
        const std::string why = blob ? decodeRow(m_d->codec, chain, q.i64(1) != 0, *blob)
                                     : breakChain(chain, blob.error().message);
        if (after < fromSeq)
            continue;
        if (!(why.empty() ? callback(after, chain.current) : onUnreadable(after, why)))
            return success();
    }
    if (rc != kDone)
        return m_d->error("loadAllVersions");
    return success();
}

Result<std::vector<HistoryGap>> HistoryStore::gaps(const std::string &scopeId)
{
    Query q = m_d->q("SELECT id, scope, from_rv, to_rv, observed_ms, reason FROM gaps WHERE scope = ? ORDER BY id");
    q.bind(1, scopeId);
    return m_d->readGaps(q);
}

Result<std::vector<HistoryGap>> HistoryStore::allGaps()
{
    Query q = m_d->q("SELECT id, scope, from_rv, to_rv, observed_ms, reason FROM gaps ORDER BY id");
    return m_d->readGaps(q);
}

Result<std::string> HistoryStore::lastResourceVersion(const std::string &scopeId)
{
    Query q = m_d->q("SELECT last_rv FROM scopes WHERE scope = ?");
    q.bind(1, scopeId);
    const int rc = q.step();
    if (rc == kRow)
        return q.text(0);
    if (rc == kDone)
        return std::string();
    return m_d->error("lastResourceVersion");
}

Result<HistoryStats> HistoryStore::stats()
{
    HistoryStats s;
    Query q = m_d->q("SELECT (SELECT COUNT(*) FROM objects), (SELECT COUNT(*) FROM gaps),"
                     " COUNT(*), COALESCE(SUM(length(data)), 0), COALESCE(SUM(raw_size), 0) FROM versions");
    if (q.step() != kRow)
        return m_d->error("stats");
    s.objects = q.i64(0);
    s.gaps = q.i64(1);
    s.versions = q.i64(2);
    s.storedBytes = q.i64(3);
    s.rawBytes = q.i64(4);
    return s;
}

Status HistoryStore::scan(const std::function<bool(const ScanRecord &)> &callback,
                          const std::vector<std::int64_t> *objects)
{
    std::set<std::int64_t> wanted;
    std::set<std::string> scopes;
    if (objects) {
        wanted.insert(objects->begin(), objects->end());
        Query sq = m_d->q("SELECT DISTINCT scope FROM versions WHERE object_id = ?");
        for (auto id : wanted) {
            sq.bind(1, id);
            while (sq.step() == kRow)
                scopes.insert(sq.text(0));
            sq.reset();
        }
    }
    // In pages: a PostgreSQL result is held whole by the client.
    constexpr std::int64_t kPage = 512;
    // The versions' page is taken before the join: a LIMIT only on the union let PostgreSQL join
    // and sort every remaining version for each page (a million versions exported in 14 minutes).
    // Rows over kInlineRowBytes are not carried in the page (HistoryStore::Impl::rowBlob). The gaps
    // are paged on their side too (a store may hold a million); their empty `data` is typed as the
    // versions' (a bare NULL in a subquery would be text to PostgreSQL, and not match bytea).
    Query q = m_d->q("SELECT v.id, 0, v.object_id, v.seq, v.rv, v.event, v.observed_ms, v.scope, v.snapshot,"
                     " CASE WHEN length(v.data) <= ?3 THEN v.data END, o.uid, o.resource, '', '', v.raw_size,"
                     " length(v.data)"
                     " FROM (SELECT * FROM versions WHERE id > ?1 ORDER BY id LIMIT ?2) AS v"
                     " JOIN objects o ON o.id = v.object_id"
                     " UNION ALL SELECT * FROM (SELECT id, 1, 0, 0, from_rv, 0, observed_ms, scope, 0,"
                     " (SELECT data FROM versions WHERE 1 = 0), '', '', to_rv, reason, 0, 0 FROM gaps WHERE id > ?1"
                     " ORDER BY id LIMIT ?2) AS g ORDER BY 1 LIMIT ?2");
    std::string holder;
    std::map<std::int64_t, ChainState> current;
    std::int64_t after = 0, inPage = 0;
    q.bind(1, after).bind(2, kPage).bind(3, Impl::kInlineRowBytes);
    int rc;
    while ((rc = q.step()) == kRow || (rc == kDone && inPage == kPage)) {
        if (rc == kDone) { // the next page
            q.reset();
            q.bind(1, after).bind(2, kPage).bind(3, Impl::kInlineRowBytes);
            inPage = 0;
            continue;
        }
        ++inPage;
        after = q.i64(0);
        ScanRecord r;
        r.isGap = q.i64(1) != 0;
        if (r.isGap) {
            r.gap = {q.text(7), q.text(4), q.text(12), q.text(13), q.i64(6), q.i64(0)};
            if (objects && !scopes.count(r.gap.scope))
                continue;
        } else {
            const std::int64_t objectId = q.i64(2);
            if (objects && !wanted.count(objectId))
                continue;
            r.version = {objectId, q.text(10), q.i64(3),      q.i64(0),  q.text(4), HistoryEventType(q.i64(5)),
                         q.i64(6), q.text(7),  q.i64(8) != 0, q.i64(15), q.i64(14)};
            r.resource = q.text(11);
            ChainState &chain = current[objectId];
            auto blob = m_d->rowBlob(q.blob(9), q.i64(15), q.i64(0), holder);
            r.unreadable = blob ? decodeRow(m_d->codec, chain, r.version.snapshot, *blob)
                                : breakChain(chain, blob.error().message);
            r.object = r.unreadable.empty() ? &chain.current : nullptr;
        }
        if (!callback(r))
            return success();
    }
    if (rc != kDone)
        return m_d->error("scan");
    return success();
}

Status HistoryStore::checkIntegrity()
{
    auto check = m_d->conn->integrityCheck();
    if (!check)
        return check.error();
    if (*check != "ok")
        return Error::make(ErrorCategory::Io, "integrity_check failed: " + *check);
    auto objects = allObjects();
    if (!objects)
        return objects.error();
    for (const auto &o : *objects) {
        auto vs = versions(o.id);
        if (!vs)
            return vs.error();
        if (std::int64_t(vs->size()) != o.versionCount)
            return Error::make(ErrorCategory::Io, "version count mismatch for " + o.ref.uid);
        if (!vs->empty() && !vs->front().snapshot)
            return Error::make(ErrorCategory::Io, "first kept version of " + o.ref.uid + " is not a snapshot");
        std::size_t i = 0;
        bool wrongRv = false;
        auto st = forEachVersion(o.id, [&](std::int64_t, const Json &object) {
            const std::optional<std::string> rv = stringAt(object, "/metadata/resourceVersion");
            wrongRv = i >= vs->size() || !rv || *rv != (*vs)[i].resourceVersion;
            ++i;
            return !wrongRv;
        });
        if (!st)
            return st.error();
        if (wrongRv)
            return Error::make(ErrorCategory::Io, "decoded version of " + o.ref.uid + " has the wrong resourceVersion");
    }
    return success();
}

} // namespace fieldscope::core
