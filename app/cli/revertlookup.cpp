#include "app/cli/revertlookup.h"

#include "core/history/historyexport.h"
#include "core/history/historyquery.h"

#include <QTemporaryDir>

namespace fieldscope::app {
namespace {

using core::Json;

struct Search {
    std::optional<RecordedVersion> found;
    std::optional<RecordedVersion> predecessor;
    std::string noPredecessor;
    bool olderLeftOut = false;
};

// Looks for `rv` among the listed versions of one incarnation. The version before it counts as its
// predecessor only when no gap or pruning lies between them: otherwise "the change RV made" may
// hold changes nobody recorded.
core::Status searchIncarnation(core::HistoryStore &store, const core::HistoryObject &o, const std::string &rv,
                               bool withPredecessor, Search &s)
{
    std::int64_t omitted = 0;
    auto entries = store.history(o.id, core::kDefaultMaxListedVersions, &omitted);
    if (!entries)
        return entries.error();
    s.olderLeftOut = s.olderLeftOut || omitted > 0;
    const core::HistoryEntry *previous = nullptr;
    std::string missed = omitted > 0 ? "the versions before it are older than the newest "
                                           + std::to_string(core::kDefaultMaxListedVersions) + " listed"
                                     : std::string();
    for (const core::HistoryEntry &e : *entries) {
        if (e.kind != core::HistoryEntry::Kind::Version) {
            previous = nullptr;
            missed = e.kind == core::HistoryEntry::Kind::Gap
                       ? "versions before it may be missing (a gap in the recording: " + e.gap.reason + ")"
                       : "the versions before it were removed by retention";
            continue;
        }
        if (e.version.resourceVersion != rv) {
            previous = &e;
            missed.clear();
            continue;
        }
        auto object = store.loadVersion(o.id, e.version.seq);
        if (!object)
            return object.error();
        s.found = RecordedVersion{o, e.version, std::move(*object)};
        if (!withPredecessor)
            return core::success();
        if (!previous) {
            s.noPredecessor = missed.empty() ? "it is the first version recorded of this object" : missed;
            return core::success();
        }
        auto before = store.loadVersion(o.id, previous->version.seq);
        if (!before)
            return before.error();
        s.predecessor = RecordedVersion{o, previous->version, std::move(*before)};
        return core::success();
    }
    return core::success();
}

core::Result<Search> search(core::HistoryStore &store, const core::ObjectQuery &query, const std::string &rv,
                            bool withPredecessor)
{
    auto objects = store.findObjects(query);
    if (!objects)
        return objects.error();
    Search s;
    for (const core::HistoryObject &o : *objects) {
        if (auto st = searchIncarnation(store, o, rv, withPredecessor, s); !st)
            return st.error();
        if (s.found)
            return s;
    }
    std::string what = query.resource + "/" + query.name + (query.allNamespaces ? "" : " in " + query.namespace_);
    return core::Error::make(core::ErrorCategory::NotFound,
                             objects->empty()
                                 ? "nothing is recorded of " + what
                                 : "no version " + rv + " of " + what + " is recorded"
                                       + (s.olderLeftOut
                                              ? " among the newest " + std::to_string(core::kDefaultMaxListedVersions)
                                                    + " versions"
                                              : std::string())
                                       + " (fieldscope history lists them)");
}

bool overlaps(const std::string &a, const std::string &b)
{
    auto inside = [](const std::string &path, const std::string &prefix) {
        return path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0
            && (path[prefix.size()] == '.' || path[prefix.size()] == '[');
    };
    return a == b || inside(a, b) || inside(b, a);
}

} // namespace

core::Result<RevertVersions> findRevertVersions(core::HistoryStore &store, const core::ObjectQuery &query,
                                                const std::string &to, bool withPredecessor, const std::string &expect)
{
    auto target = search(store, query, to, withPredecessor);
    if (!target)
        return target.error();
    RevertVersions out;
    out.target = std::move(*target->found);
    out.predecessor = std::move(target->predecessor);
    out.noPredecessor = std::move(target->noPredecessor);
    out.store = &store;
    // The same object from here on: its namespace and name, any incarnation.
    out.query = query;
    out.query.namespace_ = out.target.incarnation.ref.namespace_;
    out.query.allNamespaces = false;
    out.query.uid.clear();
    if (!expect.empty()) {
        auto seen = search(store, out.query, expect, false);
        if (!seen)
            return seen.error();
        out.expect = std::move(*seen->found);
    }
    return out;
}

std::string RevertWriter::text() const
{
    std::string names;
    for (const std::string &m : managers)
        names += (names.empty() ? "" : ", ") + m;
    if (names.empty())
        names = "an unknown writer";
    return who.empty() ? names : names + " (" + who + ")";
}

std::vector<RevertWriter> writersSince(const RevertVersions &versions, const std::string &path)
{
    std::vector<RevertWriter> out;
    if (!versions.expect || !versions.store)
        return out;
    if (!versions.listing) {
        auto listing = core::historyJson(*versions.store, versions.query);
        versions.listing = listing ? std::move(*listing) : Json::array();
    }
    bool after = false;
    for (const Json &v : *versions.listing) {
        if (!v.is_object())
            continue;
        const std::string rv = v.contains("resourceVersion") && v["resourceVersion"].is_string()
                                 ? v["resourceVersion"].get<std::string>()
                                 : std::string();
        if (!after) {
            after = rv == versions.expect->version.resourceVersion;
            continue;
        }
        bool touched = false;
        if (v.contains("changedPaths") && v["changedPaths"].is_array())
            for (const Json &p : v["changedPaths"])
                touched = touched || (p.is_string() && overlaps(p.get<std::string>(), path));
        if (!touched)
            continue;
        RevertWriter w{rv, {}, {}};
        if (v.contains("managers") && v["managers"].is_array())
            for (const Json &m : v["managers"])
                if (m.is_string())
                    w.managers.push_back(m.get<std::string>());
        if (v.contains("who") && v["who"].is_object() && v["who"].contains("user") && v["who"]["user"].is_string())
            w.who = v["who"]["user"].get<std::string>();
        out.push_back(std::move(w));
    }
    return out;
}

} // namespace fieldscope::app
