#include "core/history/historyquery.h"

#include "core/base/visibletext.h"
#include "core/history/historyexport.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace fieldscope::core {
namespace {

const Json *managedFieldsArray(const Json &object)
{
    if (!object.is_object())
        return nullptr;
    const auto meta = object.find("metadata");
    if (meta == object.end() || !meta->is_object())
        return nullptr;
    const auto mf = meta->find("managedFields");
    return mf != meta->end() && mf->is_array() ? &*mf : nullptr;
}

// The trie parseManagedFieldsEntry() decodes: "fieldsV1", or "fields" from 1.14-1.16 servers.
const Json *fieldsOf(const Json &entry)
{
    auto it = entry.find("fieldsV1");
    if (it == entry.end())
        it = entry.find("fields");
    return it != entry.end() ? &*it : nullptr;
}

// parseManagedFields(current), reusing the decoded FieldsV1 of the previous version's entry at the
// same position when its trie is unchanged: a write restamps one entry and leaves the others alone,
// and decoding tries was most of the cost of attributing a long history.
ManagedFieldsResult parseManagedFieldsReusing(const Json &current, const Json *previous,
                                              const ManagedFieldsResult &previousEntries)
{
    const Json *cur = managedFieldsArray(current);
    const Json *prev = previous ? managedFieldsArray(*previous) : nullptr;
    if (!cur || !prev || !previousEntries || prev->size() != previousEntries->size())
        return parseManagedFields(current);
    std::vector<ManagedFieldsEntry> out;
    out.reserve(cur->size());
    for (std::size_t i = 0; i < cur->size(); ++i) {
        const Json &entry = (*cur)[i];
        const Json *fields = entry.is_object() ? fieldsOf(entry) : nullptr;
        const Json *before = i < prev->size() && (*prev)[i].is_object() ? fieldsOf((*prev)[i]) : nullptr;
        // A trie that decoded before decodes the same again: only objects, no numbers, so == is exact.
        if (!fields || !before || *fields != *before)
            return parseManagedFields(current);
        Json scalars = Json::object();
        for (auto it = entry.begin(); it != entry.end(); ++it)
            if (it.key() != "fieldsV1" && it.key() != "fields")
                scalars[it.key()] = it.value();
        auto e = parseManagedFieldsEntry(scalars, i);
        if (!e)
            return e.error();
        e->fields = (*previousEntries)[i].fields;
        out.push_back(std::move(*e));
    }
    return out;
}

// Attributes the versions of one incarnation; a gap or pruned row before a version means the
// transition into it may cover unseen writes. Streams through the versions holding two decoded
// objects (the previous and the current), so memory does not grow with the number of versions.
// `onObject`, when set, is given each entry's index in `out` with its decoded object.
// With maxVersions > 0 only the newest are attributed; `omitted` counts the older ones left out.
Status appendIncarnation(HistoryStore &store, const HistoryObject &object, std::vector<AttributedEntry> &out,
                         const std::function<void(std::size_t, const Json &)> &onObject = {},
                         std::int64_t maxVersions = 0, std::int64_t *omitted = nullptr)
{
    std::int64_t left = 0;
    auto entries = store.history(object.id, maxVersions, &left);
    if (!entries)
        return entries.error();
    if (omitted)
        *omitted += left;
    std::vector<std::size_t> versionAt; // index in `out` of each version, in seq order
    std::vector<bool> missingBefore;    // a gap or pruned row precedes that version
    bool missing = false; // versions left out by maxVersions are not missing: the walk reads the one before
    std::int64_t firstSeq = 0;
    for (auto &e : *entries) {
        if (e.kind == HistoryEntry::Kind::Version) {
            if (versionAt.empty())
                firstSeq = e.version.seq;
            versionAt.push_back(out.size());
            missingBefore.push_back(missing);
            missing = false;
        } else {
            missing = true;
        }
        out.push_back(AttributedEntry{std::move(e), object, {}});
    }
    std::size_t vi = 0;
    Json previous;
    bool havePrevious = false; // the version before was read (an unreadable one breaks the chain)
    // Each version's managedFields are decoded once: as "current", then kept as "previous".
    ManagedFieldsResult previousEntries = std::vector<ManagedFieldsEntry>();
    auto visit = [&](std::int64_t seq, const Json &current) {
        if (seq < firstSeq) { // the version before the first listed one: its predecessor, not shown
            previous = current;
            previousEntries = parseManagedFields(current);
            havePrevious = true;
            return true;
        }
        if (vi >= versionAt.size())
            return false;
        AttributedEntry &a = out[versionAt[vi]];
        AttributionContext ctx;
        ctx.eventType = a.entry.version.eventType;
        ctx.versionsMissing = (missingBefore[vi] || !havePrevious) && vi > 0;
        const Json *before = havePrevious ? &previous : nullptr;
        ManagedFieldsResult currentEntries = parseManagedFieldsReusing(current, before, previousEntries);
        a.attribution = attributeTransition(before, previousEntries, current, currentEntries, ctx);
        previousEntries = std::move(currentEntries);
        if (vi == 0 && missingBefore[vi] && a.attribution.reason.find("first observed") == std::string::npos)
            a.attribution.reason += a.attribution.reason.empty() ? "earlier versions were pruned"
                                                                 : "; earlier versions were pruned";
        if (onObject)
            onObject(versionAt[vi], current);
        previous = current;
        havePrevious = true;
        ++vi;
        return true;
    };
    // A row someone else wrote that does not decode is that version's problem only: it is listed
    // with its reason, and the next readable version is attributed as after a gap.
    auto unreadable = [&](std::int64_t seq, const std::string &why) {
        if (seq < firstSeq) {
            havePrevious = false;
            return true;
        }
        if (vi >= versionAt.size())
            return false;
        out[versionAt[vi]].unreadable = why;
        previous = Json();
        previousEntries = std::vector<ManagedFieldsEntry>();
        havePrevious = false;
        ++vi;
        return true;
    };
    // With older versions left out, the walk starts one before the first listed (its predecessor).
    auto st = store.forEachVersion(object.id, visit, unreadable, left > 0 ? firstSeq - 1 : 0);
    if (!st)
        return st;
    if (vi != versionAt.size())
        return Error::make(ErrorCategory::Io, "history listing and decoded versions disagree for " + object.ref.uid);
    return success();
}

} // namespace

Result<std::vector<AttributedEntry>> attributedHistory(HistoryStore &store, const ObjectQuery &query,
                                                       std::int64_t maxVersions, std::int64_t *omitted)
{
    auto objects = store.findObjects(query);
    if (!objects)
        return objects.error();
    std::vector<AttributedEntry> out;
    std::int64_t left = 0;
    if (omitted)
        *omitted = 0;
    for (const auto &o : *objects)
        if (auto st = appendIncarnation(store, o, out, {}, maxVersions, omitted ? omitted : &left); !st)
            return st.error();
    return out;
}

Result<LoadedHistory> loadHistory(HistoryStore &store, const ObjectQuery &query)
{
    auto objects = store.findObjects(query);
    if (!objects)
        return objects.error();
    LoadedHistory out;
    auto keep = [&](std::size_t at, const Json &object) {
        out.objects.resize(at + 1);
        out.objects[at] = object;
    };
    for (const auto &o : *objects)
        if (auto st = appendIncarnation(store, o, out.entries, keep); !st)
            return st.error();
    out.objects.resize(out.entries.size());
    return out;
}

Json historyWhoJson(const AuditJoin *join)
{
    if (!join || join->candidates.empty() || join->match == AuditMatch::Ambiguous)
        return nullptr;
    // Several people claim the version: nobody is named (a script reading who.user gets null);
    // the claims are in whoCandidates.
    if (join->match == AuditMatch::Contested)
        return Json{{"match", auditMatchName(join->match)}};
    Json who = auditWhoJson(join->candidates.front());
    who["match"] = auditMatchName(join->match);
    return who;
}

Result<std::vector<AuditAttempt>> historyAttempts(HistoryStore &store, const std::vector<HistoryObject> &objects)
{
    std::vector<AuditAttempt> out;
    std::set<std::string> asked;
    for (const auto &o : objects) {
        const AuditObjectKey key = auditObjectKeyOf(o);
        if (!asked.insert(key.toString()).second)
            continue;
        auto attempts = store.auditAttempts(key);
        if (!attempts)
            return attempts.error();
        out.insert(out.end(), attempts->begin(), attempts->end());
    }
    std::stable_sort(out.begin(), out.end(), [](const AuditAttempt &a, const AuditAttempt &b) {
        return parseRfc3339Micros(a.who.requestReceivedTimestamp).value_or(0)
             < parseRfc3339Micros(b.who.requestReceivedTimestamp).value_or(0);
    });
    return out;
}

namespace {

// An object's rows with the joins of each incarnation and, when asked, the refused writes.
struct Listing {
    std::vector<AttributedEntry> rows;
    std::map<std::string, std::map<std::string, AuditJoin>> joins; // uid -> RV -> join
    std::vector<AuditAttempt> attempts;
    std::map<std::string, std::int64_t> omitted; // uid -> older versions left out (maxVersions)

    const AuditJoin *joinOf(const AttributedEntry &r) const { return joinOfEntry(joins, r); }
};

Result<Listing> listing(HistoryStore &store, const ObjectQuery &query, const HistoryListingOptions &options)
{
    auto objects = store.findObjects(query);
    if (!objects)
        return objects.error();
    if (objects->empty())
        return Error::make(ErrorCategory::NotFound, "no recorded history for " + query.resource + "/" + query.name);
    Listing out;
    for (const auto &o : *objects) {
        std::int64_t omitted = 0;
        if (auto st = appendIncarnation(store, o, out.rows, {}, options.maxVersions, &omitted); !st)
            return st.error();
        if (omitted > 0)
            out.omitted[o.ref.uid] = omitted;
        if (options.omittedVersions)
            *options.omittedVersions += omitted;
        auto joins = store.auditJoins(o.ref.uid);
        if (!joins)
            return joins.error();
        out.joins[o.ref.uid] = std::move(*joins);
    }
    if (options.attempts) {
        auto attempts = historyAttempts(store, *objects);
        if (!attempts)
            return attempts.error();
        out.attempts = std::move(*attempts);
    }
    return out;
}

Json attemptJson(const AuditAttempt &a)
{
    return Json{{"eventType", "REFUSED"}, {"time", a.who.requestReceivedTimestamp},
                {"code", a.code},         {"reason", a.reason},
                {"message", a.message},   {"who", auditWhoJson(a.who)}};
}

std::string attemptText(const AuditAttempt &a)
{
    // Names and messages come from whoever wrote the audit log: no control bytes reach a terminal.
    std::string line = "  !! REFUSED " + std::to_string(a.code) + " " + visibleEscapes(a.reason) + "  "
                     + visibleEscapes(a.who.requestReceivedTimestamp) + "  " + visibleEscapes(a.who.verb) + " by "
                     + visibleEscapes(auditActingName(a.who));
    if (!a.message.empty())
        line += ": " + visibleEscapes(a.message);
    return line + "\n";
}

// Text from a store row someone else may have written (a kind, a name, a gap's reason): no control
// bytes reach a terminal, and a megabyte-long name is cut to what a line can show.
std::string shownStored(std::string_view s)
{
    constexpr std::size_t kMaxShown = 253; // a DNS subdomain, the longest name the API server takes
    if (s.size() <= kMaxShown)
        return visibleEscapes(s);
    return visibleEscapes(s.substr(0, kMaxShown)) + "... (" + std::to_string(s.size()) + " bytes)";
}

std::string whoText(const AuditJoin *join)
{
    if (!join || join->candidates.empty())
        return {};
    std::string names;
    for (const auto &c : join->candidates)
        names += (names.empty() ? "" : " or ") + visibleEscapes(auditActingName(c));
    if (join->moreCandidates)
        names += " or more";
    return "  by " + names + " (" + auditMatchName(join->match) + ")";
}

} // namespace

const AuditJoin *joinOfEntry(const std::map<std::string, std::map<std::string, AuditJoin>> &joins,
                             const AttributedEntry &entry)
{
    if (entry.entry.kind != HistoryEntry::Kind::Version)
        return nullptr;
    const auto uid = joins.find(entry.object.ref.uid);
    if (uid == joins.end())
        return nullptr;
    const auto rv = uid->second.find(entry.entry.version.resourceVersion);
    return rv == uid->second.end() ? nullptr : &rv->second;
}

std::int64_t versionWrittenMicros(std::int64_t observedAtMs, const AuditJoin *join)
{
    // The recorder's clock keeps milliseconds; a row written elsewhere may hold any number.
    constexpr std::int64_t kMaxMs = std::numeric_limits<std::int64_t>::max() / 1000 - 1;
    const std::int64_t seenBy = (std::clamp(observedAtMs, -kMaxMs, kMaxMs) + 1) * 1000;
    if (!join || join->candidates.size() != 1
        || (join->match != AuditMatch::Exact && join->match != AuditMatch::Probable))
        return seenBy;
    const auto requested = parseRfc3339Micros(join->candidates.front().requestReceivedTimestamp);
    return requested ? std::min(*requested, seenBy) : seenBy;
}

std::int64_t attemptMicros(const AuditAttempt &a)
{
    return parseRfc3339Micros(a.who.requestReceivedTimestamp).value_or(0);
}

Result<Json> historyJson(HistoryStore &store, const ObjectQuery &query, const HistoryListingOptions &options)
{
    auto list = listing(store, query, options);
    if (!list)
        return list.error();
    Json out = Json::array();
    std::size_t nextAttempt = 0;
    for (const auto &r : list->rows) {
        if (r.entry.kind != HistoryEntry::Kind::Version)
            continue;
        for (; nextAttempt < list->attempts.size()
               && attemptMicros(list->attempts[nextAttempt])
                      < versionWrittenMicros(r.entry.version.observedAtMs, list->joinOf(r));
             ++nextAttempt)
            out.push_back(attemptJson(list->attempts[nextAttempt]));
        Json paths = Json::array();
        for (const auto &c : r.attribution.changes)
            paths.push_back(c.path.toString());
        const AuditJoin *join = list->joinOf(r);
        Json entry{{"resourceVersion", r.entry.version.resourceVersion},
                   {"eventType", historyEventTypeName(r.entry.version.eventType)},
                   {"observedAt", formatTimestampMs(r.entry.version.observedAtMs)},
                   {"managers", r.attribution.managerNames()},
                   {"changedPaths", std::move(paths)},
                   {"who", historyWhoJson(join)}};
        if (!r.unreadable.empty())
            entry["unreadable"] = r.unreadable;
        if (join && (join->match == AuditMatch::Ambiguous || join->match == AuditMatch::Contested)) {
            Json candidates = Json::array();
            for (const auto &c : join->candidates)
                candidates.push_back(auditWhoJson(c));
            entry["whoCandidates"] = std::move(candidates);
            entry["whoMore"] = join->moreCandidates;
        }
        out.push_back(std::move(entry));
    }
    for (; nextAttempt < list->attempts.size(); ++nextAttempt)
        out.push_back(attemptJson(list->attempts[nextAttempt]));
    return out;
}

Result<std::map<std::string, std::string>> managerWriters(HistoryStore &store, const ObjectQuery &query,
                                                          const std::string &uid)
{
    auto list = listing(store, query, {});
    if (!list)
        return list.error();
    std::map<std::string, std::string> out;
    for (const auto &r : list->rows) {
        if (r.entry.kind != HistoryEntry::Kind::Version || r.object.ref.uid != uid
            || r.entry.version.eventType == HistoryEventType::Deleted)
            continue;
        const AuditJoin *join = list->joinOf(r);
        if (!join || join->match == AuditMatch::Ambiguous || join->match == AuditMatch::Contested
            || join->candidates.empty())
            continue;
        std::string name = auditActingName(join->candidates.front());
        if (join->match == AuditMatch::Probable)
            name += " (probable)";
        for (const auto &w : r.attribution.writers)
            out[w.who.label()] = name; // rows are oldest first: the last write wins
    }
    return out;
}

Result<std::string> historyText(HistoryStore &store, const ObjectQuery &query, const HistoryListingOptions &options)
{
    auto list = listing(store, query, options);
    if (!list)
        return list.error();
    std::string text;
    std::string uid;
    std::size_t nextAttempt = 0;
    for (const auto &r : list->rows) {
        if (r.object.ref.uid != uid) {
            uid = r.object.ref.uid;
            text += shownStored(r.object.ref.kind) + " " + shownStored(r.object.ref.displayName()) + " (uid "
                  + shownStored(uid) + ")\n";
            if (const auto o = list->omitted.find(uid); o != list->omitted.end())
                text += "  ... " + std::to_string(o->second) + " older versions not listed (--max-versions)\n";
        }
        if (r.entry.kind == HistoryEntry::Kind::Pruned) {
            text += "  ... " + std::to_string(r.entry.prunedCount) + " older versions removed by retention\n";
            continue;
        }
        if (r.entry.kind == HistoryEntry::Kind::Gap) {
            const auto &g = r.entry.gap;
            text += "  ~~ not observed: versions after " + (g.fromRv.empty() ? std::string("?") : shownStored(g.fromRv))
                  + " up to " + (g.toRv.empty() ? std::string("?") : shownStored(g.toRv)) + " (" + shownStored(g.reason)
                  + ")\n";
            continue;
        }
        const auto &v = r.entry.version;
        for (; nextAttempt < list->attempts.size()
               && attemptMicros(list->attempts[nextAttempt]) < versionWrittenMicros(v.observedAtMs, list->joinOf(r));
             ++nextAttempt)
            text += attemptText(list->attempts[nextAttempt]);
        std::string managers;
        for (const auto &m : r.attribution.managerNames())
            managers += (managers.empty() ? "" : ",") + shownStored(m);
        if (!r.unreadable.empty()) {
            text += "  " + shownStored(v.resourceVersion) + "  unreadable: " + shownStored(r.unreadable) + "\n";
            continue;
        }
        text += "  " + shownStored(v.resourceVersion) + "  " + historyEventTypeName(v.eventType) + "  "
              + formatTimestampMs(v.observedAtMs) + "  " + (managers.empty() ? std::string("-") : managers) + "  "
              + std::to_string(r.attribution.changes.size()) + " field(s) changed" + whoText(list->joinOf(r));
        if (r.attribution.ambiguous)
            text += "  (ambiguous: " + shownStored(r.attribution.reason) + ")";
        text += "\n";
        for (const auto &c : r.attribution.changes)
            text += std::string("      ") + fieldChangeKindName(c.kind) + " " + shownStored(c.path.toString()) + "\n";
    }
    for (; nextAttempt < list->attempts.size(); ++nextAttempt)
        text += attemptText(list->attempts[nextAttempt]);
    return text;
}

} // namespace fieldscope::core
