// The JSON shape of who made a request (core/history/historywho.h): what `history -o json` prints
// and what the history store keeps, read back with type checks.
#include "core/history/historywho.h"

#include "core/base/jsonread.h"

namespace fieldscope::core {

std::string AuditObjectKey::toString() const
{
    std::string out = group.empty() ? resource : resource + "." + group;
    if (!namespace_.empty())
        out += "/" + namespace_;
    return out + "/" + name;
}

const char *auditMatchName(AuditMatch m)
{
    switch (m) {
    case AuditMatch::Exact: return "exact";
    case AuditMatch::Probable: return "probable";
    case AuditMatch::Ambiguous: return "ambiguous";
    }
    return "?";
}

Json auditWhoJson(const AuditWho &who)
{
    Json j = Json::object();
    j["user"] = who.user.username;
    j["groups"] = who.user.groups;
    j["impersonatedUser"] = who.hasImpersonatedUser ? Json(who.impersonatedUser.username) : Json(nullptr);
    if (who.hasImpersonatedUser)
        j["impersonatedGroups"] = who.impersonatedUser.groups;
    j["userAgent"] = who.userAgent;
    j["sourceIPs"] = who.sourceIPs;
    j["verb"] = who.verb;
    j["requestURI"] = who.requestURI;
    j["auditID"] = who.auditID;
    j["fieldManager"] = who.fieldManager;
    j["requestReceivedTimestamp"] = who.requestReceivedTimestamp;
    j["stageTimestamp"] = who.stageTimestamp;
    j["responseCode"] = who.responseCode;
    return j;
}

Result<AuditWho> auditWhoFromJson(const Json &json, std::string_view where)
{
    JsonReader r("audit record " + std::string(where));
    if (!r.expectObject(json, ""))
        return r.error();
    AuditWho w;
    w.user.username = r.string(json, "user", "");
    w.user.groups = r.strings(json, "groups", "");
    if (const auto imp = json.find("impersonatedUser"); imp != json.end() && !imp->is_null()) {
        w.hasImpersonatedUser = true;
        w.impersonatedUser.username = r.string(json, "impersonatedUser", "");
        w.impersonatedUser.groups = r.strings(json, "impersonatedGroups", "");
    }
    w.userAgent = r.string(json, "userAgent", "");
    w.sourceIPs = r.strings(json, "sourceIPs", "");
    w.verb = r.string(json, "verb", "");
    w.requestURI = r.string(json, "requestURI", "");
    w.auditID = r.string(json, "auditID", "");
    w.fieldManager = r.string(json, "fieldManager", "");
    w.requestReceivedTimestamp = r.string(json, "requestReceivedTimestamp", "");
    w.stageTimestamp = r.string(json, "stageTimestamp", "");
    w.responseCode = int(r.integer(json, "responseCode", ""));
    if (!r.ok())
        return r.error();
    return w;
}

AuditObjectKey auditObjectKeyOf(const HistoryObject &object)
{
    const auto slash = object.ref.apiVersion.find('/');
    return {slash == std::string::npos ? std::string() : object.ref.apiVersion.substr(0, slash), object.resource,
            object.ref.namespace_, object.ref.name};
}

std::string auditActingName(const AuditWho &who)
{
    if (who.hasImpersonatedUser)
        return who.user.username + " as " + who.impersonatedUser.username;
    return who.user.username;
}

} // namespace fieldscope::core
