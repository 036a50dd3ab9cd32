#include "core/ownership/managedfields.h"

#include <algorithm>
#include <charconv>
#include <chrono>

namespace fieldscope::core {
namespace {

bool readInt(std::string_view s, std::size_t pos, std::size_t len, int *out)
{
    if (pos + len > s.size())
        return false;
    const char *b = s.data() + pos;
    auto [p, ec] = std::from_chars(b, b + len, *out);
    return ec == std::errc() && p == b + len;
}

std::string stringField(const Json &entry, const char *name)
{
    auto it = entry.find(name);
    return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

const char *operationName(ManagedOperation op)
{
    return op == ManagedOperation::Apply ? "Apply" : "Update";
}

std::optional<std::int64_t> parseRfc3339(std::string_view s)
{
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':'
        || s[16] != ':')
        return std::nullopt;
    if (!readInt(s, 0, 4, &y) || !readInt(s, 5, 2, &mo) || !readInt(s, 8, 2, &d) || !readInt(s, 11, 2, &h)
        || !readInt(s, 14, 2, &mi) || !readInt(s, 17, 2, &sec))
        return std::nullopt;
    std::size_t pos = 19;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
            ++pos;
    }
    int offset = 0;
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh = 0, om = 0;
        if (!readInt(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !readInt(s, pos + 4, 2, &om))
            return std::nullopt;
        offset = (s[pos] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
        pos += 6;
    } else {
        return std::nullopt;
    }
    if (pos != s.size())
        return std::nullopt;
    using namespace std::chrono;
    const year_month_day ymd{year{y}, month{unsigned(mo)}, day{unsigned(d)}};
    if (!ymd.ok() || h > 23 || mi > 59 || sec > 60)
        return std::nullopt;
    const auto days = sys_days(ymd).time_since_epoch().count();
    return std::int64_t(days) * 86400 + std::int64_t{h} * 3600 + std::int64_t{mi} * 60 + sec - offset;
}

std::string ManagedFieldsEntry::label() const
{
    std::string s = manager + "(" + operationName(operation);
    if (!subresource.empty())
        s += "/" + subresource;
    return s + ")";
}

std::string ManagedFieldsEntry::conflictDescription() const
{
    std::string s = toJsonText(Json(manager));
    if (!subresource.empty())
        s += " with subresource " + toJsonText(Json(subresource));
    if (operation == ManagedOperation::Update)
        s += " using " + apiVersion;
    return s;
}

bool ManagedFieldsEntry::sameIdentity(const ManagedFieldsEntry &o) const
{
    return manager == o.manager && operation == o.operation && subresource == o.subresource
        && (operation == ManagedOperation::Apply || apiVersion == o.apiVersion);
}

Result<ManagedFieldsEntry> parseManagedFieldsEntry(const Json &entry, std::size_t index)
{
    const std::string where = "metadata.managedFields[" + std::to_string(index) + "]";
    if (!entry.is_object())
        return Error::make(ErrorCategory::Parse, "a managedFields entry must be an object", where);
    ManagedFieldsEntry e;
    e.manager = stringField(entry, "manager");
    e.apiVersion = stringField(entry, "apiVersion");
    e.subresource = stringField(entry, "subresource");
    e.time = stringField(entry, "time");
    if (!e.time.empty())
        e.timeSeconds = parseRfc3339(e.time);
    const std::string op = stringField(entry, "operation");
    if (op == "Apply")
        e.operation = ManagedOperation::Apply;
    else if (op == "Update")
        e.operation = ManagedOperation::Update;
    else
        return Error::make(ErrorCategory::Parse, "unknown managedFields operation \"" + op + "\"",
                           where + ".operation");
    // 1.14-1.16 servers wrote the same trie under "fields" (fieldsType FieldsV1 came in 1.17).
    auto fv = entry.find("fieldsV1");
    const char *fieldName = "fieldsV1";
    if (fv == entry.end()) {
        fv = entry.find("fields");
        fieldName = "fields";
    }
    if (fv != entry.end()) {
        auto set = FieldSet::fromFieldsV1(*fv);
        if (!set) {
            Error err = set.error();
            err.where = where + "." + fieldName + " at " + err.where;
            return err;
        }
        e.fields = std::move(*set);
    }
    return e;
}

namespace {
void hintsFrom(const FieldSet &set, std::vector<PathElement> &path, ListSemanticsResolver *resolver)
{
    for (const auto &c : set.children()) {
        if (c.element.kind == PathElement::Kind::Key) {
            ListSemantics s;
            s.type = ListSemantics::Type::Map;
            for (auto it = c.element.key.begin(); it != c.element.key.end(); ++it)
                s.keys.push_back(it.key());
            std::sort(s.keys.begin(), s.keys.end());
            resolver->addHint(schemaPathOf(FieldPath(path)), std::move(s));
        } else if (c.element.kind == PathElement::Kind::Value) {
            resolver->addHint(schemaPathOf(FieldPath(path)), ListSemantics{ListSemantics::Type::Set, {}, {}});
        }
        if (c.set.hasChildren()) {
            path.push_back(c.element);
            hintsFrom(c.set, path, resolver);
            path.pop_back();
        }
    }
}
} // namespace

void addListSemanticsHints(const std::vector<ManagedFieldsEntry> &entries, ListSemanticsResolver *resolver)
{
    std::vector<PathElement> path;
    for (const auto &e : entries)
        hintsFrom(e.fields, path, resolver);
}

Result<std::vector<ManagedFieldsEntry>> parseManagedFields(const Json &object)
{
    std::vector<ManagedFieldsEntry> out;
    if (!object.is_object())
        return out;
    auto meta = object.find("metadata");
    if (meta == object.end() || !meta->is_object())
        return out;
    auto mf = meta->find("managedFields");
    if (mf == meta->end() || mf->is_null())
        return out;
    if (!mf->is_array())
        return Error::make(ErrorCategory::Parse, "metadata.managedFields must be a list", "metadata.managedFields");
    out.reserve(mf->size());
    for (std::size_t i = 0; i < mf->size(); ++i) {
        auto e = parseManagedFieldsEntry((*mf)[i], i);
        if (!e)
            return e.error();
        out.push_back(std::move(*e));
    }
    return out;
}

} // namespace fieldscope::core
