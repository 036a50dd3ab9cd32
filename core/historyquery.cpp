#include "core/historyquery.h"

#include "core/historyexport.h"

namespace fieldscope::core {
namespace {

// Attributes the versions of one incarnation; a gap or pruned row before a version means the
// transition into it may cover unseen writes.
Status appendIncarnation(HistoryStore &store, const HistoryObject &object, std::vector<AttributedEntry> &out)
{
    auto entries = store.history(object.id);
    if (!entries)
        return entries.error();
    auto objects = store.loadAllVersions(object.id);
    if (!objects)
        return objects.error();
    std::size_t vi = 0;
    bool missing = false;
    for (auto &e : *entries) {
        AttributedEntry a{e, object, {}};
        if (e.kind != HistoryEntry::Kind::Version) {
            missing = true;
            out.push_back(std::move(a));
            continue;
        }
        if (vi >= objects->size())
            return Error::make(ErrorCategory::Io, "history listing and decoded versions disagree for " + object.ref.uid);
        AttributionContext ctx;
        ctx.eventType = e.version.eventType;
        ctx.versionsMissing = missing && vi > 0;
        a.attribution = attributeTransition(vi > 0 ? &(*objects)[vi - 1] : nullptr, (*objects)[vi], ctx);
        if (vi == 0 && missing && a.attribution.reason.find("first observed") == std::string::npos)
            a.attribution.reason += a.attribution.reason.empty() ? "earlier versions were pruned" : "; earlier versions were pruned";
        missing = false;
        ++vi;
        out.push_back(std::move(a));
    }
    return success();
}

} // namespace

Result<std::vector<AttributedEntry>> attributedHistory(HistoryStore &store, const ObjectQuery &query)
{
    auto objects = store.findObjects(query);
    if (!objects)
        return objects.error();
    std::vector<AttributedEntry> out;
    for (const auto &o : *objects)
        if (auto st = appendIncarnation(store, o, out); !st)
            return st.error();
    return out;
}

Result<Json> historyJson(HistoryStore &store, const ObjectQuery &query)
{
    auto rows = attributedHistory(store, query);
    if (!rows)
        return rows.error();
    if (rows->empty())
        return Error::make(ErrorCategory::NotFound, "no recorded history for " + query.resource + "/" + query.name);
    Json out = Json::array();
    for (const auto &r : *rows) {
        if (r.entry.kind != HistoryEntry::Kind::Version)
            continue;
        Json paths = Json::array();
        for (const auto &c : r.attribution.changes)
            paths.push_back(c.path.toString());
        out.push_back(Json{{"resourceVersion", r.entry.version.resourceVersion},
                           {"eventType", historyEventTypeName(r.entry.version.eventType)},
                           {"observedAt", formatTimestampMs(r.entry.version.observedAtMs)},
                           {"managers", r.attribution.managerNames()},
                           {"changedPaths", std::move(paths)}});
    }
    return out;
}

Result<std::string> historyText(HistoryStore &store, const ObjectQuery &query)
{
    auto rows = attributedHistory(store, query);
    if (!rows)
        return rows.error();
    if (rows->empty())
        return Error::make(ErrorCategory::NotFound, "no recorded history for " + query.resource + "/" + query.name);
    std::string text;
    std::string uid;
    for (const auto &r : *rows) {
        if (r.object.ref.uid != uid) {
            uid = r.object.ref.uid;
            text += r.object.ref.kind + " " + r.object.ref.displayName() + " (uid " + uid + ")\n";
        }
        if (r.entry.kind == HistoryEntry::Kind::Pruned) {
            text += "  ... " + std::to_string(r.entry.prunedCount) + " older versions removed by retention\n";
            continue;
        }
        if (r.entry.kind == HistoryEntry::Kind::Gap) {
            const auto &g = r.entry.gap;
            text += "  ~~ not observed: versions after " + (g.fromRv.empty() ? std::string("?") : g.fromRv) + " up to "
                  + (g.toRv.empty() ? std::string("?") : g.toRv) + " (" + g.reason + ")\n";
            continue;
        }
        const auto &v = r.entry.version;
        std::string managers;
        for (const auto &m : r.attribution.managerNames())
            managers += (managers.empty() ? "" : ",") + m;
        text += "  " + v.resourceVersion + "  " + historyEventTypeName(v.eventType) + "  " + formatTimestampMs(v.observedAtMs)
              + "  " + (managers.empty() ? std::string("-") : managers) + "  "
              + std::to_string(r.attribution.changes.size()) + " field(s) changed";
        if (r.attribution.ambiguous)
            text += "  (ambiguous: " + r.attribution.reason + ")";
        text += "\n";
        for (const auto &c : r.attribution.changes)
            text += std::string("      ") + fieldChangeKindName(c.kind) + " " + c.path.toString() + "\n";
    }
    return text;
}

} // namespace fieldscope::core
