// The JSON shape of who made a request (core/history/historywho.h): what `history -o json` prints
// and what the history store keeps, read back with type checks.
#include "core/history/historywho.h"

#include "core/base/jsonread.h"

#include <charconv>

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
    case AuditMatch::Contested: return "contested";
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

namespace {

// A string as nlohmann's dump writes it with ensure_ascii off: quote and backslash escaped, control
// characters as \b \t \n \f \r or \u00xx (lower-case hex), DEL and the rest as they are. A string
// with a byte past ASCII goes through the dump itself: only it knows which bytes its error handler
// replaces with U+FFFD. Who fields are ASCII in practice, so the detour is rare.
void appendJsonString(std::string &out, const std::string &s)
{
    static constexpr char kHex[] = "0123456789abcdef";
    const std::size_t mark = out.size();
    out += '"';
    std::size_t plainFrom = 0; // runs of bytes written as they are go in one append
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80)
            continue;
        if (c >= 0x80) {
            out.resize(mark);
            out += safeDump(Json(s));
            return;
        }
        out.append(s, plainFrom, i - plainFrom);
        plainFrom = i + 1;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\f': out += "\\f"; break;
        case '\r': out += "\\r"; break;
        default:
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xf];
        }
    }
    out.append(s, plainFrom, s.size() - plainFrom);
    out += '"';
}

void appendJsonStrings(std::string &out, const std::vector<std::string> &strings)
{
    out += '[';
    for (std::size_t i = 0; i < strings.size(); ++i) {
        if (i > 0)
            out += ',';
        appendJsonString(out, strings[i]);
    }
    out += ']';
}

void appendKey(std::string &out, const char *key)
{
    out += '"';
    out += key;
    out += "\":";
}

} // namespace

// Keys in auditWhoJson's order (the object keeps insertion order), no spaces, as dump(-1) writes.
void appendAuditWhoJsonText(std::string &out, const AuditWho &who)
{
    out += '{';
    appendKey(out, "user");
    appendJsonString(out, who.user.username);
    out += ',';
    appendKey(out, "groups");
    appendJsonStrings(out, who.user.groups);
    out += ',';
    appendKey(out, "impersonatedUser");
    if (who.hasImpersonatedUser) {
        appendJsonString(out, who.impersonatedUser.username);
        out += ',';
        appendKey(out, "impersonatedGroups");
        appendJsonStrings(out, who.impersonatedUser.groups);
    } else {
        out += "null";
    }
    out += ',';
    appendKey(out, "userAgent");
    appendJsonString(out, who.userAgent);
    out += ',';
    appendKey(out, "sourceIPs");
    appendJsonStrings(out, who.sourceIPs);
    const std::pair<const char *, const std::string *> strings[] = {
        {"verb", &who.verb},
        {"requestURI", &who.requestURI},
        {"auditID", &who.auditID},
        {"fieldManager", &who.fieldManager},
        {"requestReceivedTimestamp", &who.requestReceivedTimestamp},
        {"stageTimestamp", &who.stageTimestamp}};
    for (const auto &[key, value] : strings) {
        out += ',';
        appendKey(out, key);
        appendJsonString(out, *value);
    }
    out += ',';
    appendKey(out, "responseCode");
    char number[16];
    const auto end = std::to_chars(number, number + sizeof number, who.responseCode).ptr;
    out.append(number, end);
    out += '}';
}

std::string auditWhosJsonText(const std::vector<AuditWho> &whos)
{
    std::string out;
    out.reserve(whos.size() * 512); // a typical who is 300-500 bytes
    out += '[';
    for (std::size_t i = 0; i < whos.size(); ++i) {
        if (i > 0)
            out += ',';
        appendAuditWhoJsonText(out, whos[i]);
    }
    out += ']';
    return out;
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

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool digitsAt(std::string_view s, std::size_t at, std::size_t count, int *out)
{
    if (at + count > s.size())
        return false;
    int v = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

} // namespace

std::optional<std::int64_t> parseRfc3339Micros(std::string_view s)
{
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digitsAt(s, 0, 4, &year) || s.size() < 20 || s[4] != '-' || !digitsAt(s, 5, 2, &month) || s[7] != '-'
        || !digitsAt(s, 8, 2, &day) || (s[10] != 'T' && s[10] != 't') || !digitsAt(s, 11, 2, &hour) || s[13] != ':'
        || !digitsAt(s, 14, 2, &minute) || s[16] != ':' || !digitsAt(s, 17, 2, &second))
        return std::nullopt;
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    std::size_t i = 19;
    std::int64_t micros = 0;
    if (i < s.size() && s[i] == '.') {
        ++i;
        int digits = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            if (digits < 6)
                micros = micros * 10 + (s[i] - '0');
            ++digits;
            ++i;
        }
        if (digits == 0)
            return std::nullopt;
        for (int k = digits; k < 6; ++k)
            micros *= 10;
    }
    std::int64_t offsetSeconds = 0;
    if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
        ++i;
    } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
        int oh = 0, om = 0;
        if (!digitsAt(s, i + 1, 2, &oh) || i + 3 >= s.size() || s[i + 3] != ':' || !digitsAt(s, i + 4, 2, &om)
            || oh > 23 || om > 59)
            return std::nullopt;
        offsetSeconds = (s[i] == '+' ? 1 : -1) * (std::int64_t{oh} * 3600 + std::int64_t{om} * 60);
        i += 6;
    } else {
        return std::nullopt;
    }
    if (i != s.size())
        return std::nullopt;
    const std::int64_t days = daysFromCivil(year, unsigned(month), unsigned(day));
    const std::int64_t seconds = days * 86400 + std::int64_t{hour} * 3600 + std::int64_t{minute} * 60 + second
                               - offsetSeconds;
    return seconds * 1000000 + micros;
}

} // namespace fieldscope::core
