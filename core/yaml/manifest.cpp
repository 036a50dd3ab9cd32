#include "core/yaml/manifest.h"

#include "core/base/jsonread.h"
#include "core/yaml/yaml.h"

namespace fieldscope::core {
namespace {

bool isList(const Json &doc)
{
    const auto kind = doc.find("kind");
    if (kind == doc.end() || !kind->is_string())
        return false;
    const auto &k = kind->get_ref<const std::string &>();
    return k.size() >= 4 && k.compare(k.size() - 4, 4, "List") == 0 && doc.contains("items");
}

// Lists inside lists are flattened too (kubectl does), to a small depth: a real file has one.
Status flatten(const Json &doc, const std::string &where, int depth, std::vector<Json> &out)
{
    if (!doc.is_object())
        return Error::make(ErrorCategory::Parse, "expected a Kubernetes object (a mapping)", where);
    if (!isList(doc)) {
        out.push_back(doc);
        return success();
    }
    if (depth > 4)
        return Error::make(ErrorCategory::Parse, "lists nested deeper than 4 levels", where);
    const Json &items = doc["items"];
    if (!items.is_array() && !items.is_null())
        return Error::make(ErrorCategory::Parse, "items of a " + doc["kind"].get<std::string>() + " must be a list",
                           where + ", items");
    if (items.is_null())
        return success();
    const std::string listKind = doc["kind"].get<std::string>();
    const std::string itemKind = listKind == "List" ? std::string() : listKind.substr(0, listKind.size() - 4);
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string at = where + ", items[" + std::to_string(i) + "]";
        Json item = items[i];
        if (item.is_object() && !itemKind.empty()) {
            if (!item.contains("kind"))
                item["kind"] = itemKind;
            if (!item.contains("apiVersion") && doc.contains("apiVersion"))
                item["apiVersion"] = doc["apiVersion"];
        }
        if (auto st = flatten(item, at, depth + 1, out); !st)
            return st;
    }
    return success();
}

std::string text(const Json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

Result<ManifestObjects> manifestObjects(std::string_view input)
{
    ManifestObjects out;
    auto docs = yamlDocumentsToJson(input, YamlLimits{}, &out.warnings);
    if (!docs)
        return docs.error();
    for (std::size_t d = 0; d < docs->size(); ++d) {
        const std::string where = docs->size() == 1 ? std::string() : "document " + std::to_string(d + 1);
        if (auto st = flatten((*docs)[d], where, 0, out.objects); !st)
            return st.error();
    }
    if (out.objects.empty())
        return Error::make(ErrorCategory::Parse, docs->empty() ? "the file is empty" : "the list has no items");
    out.single = docs->size() == 1 && !isList(docs->front());
    return out;
}

Json manifestIdentity(const Json &object)
{
    Json id = Json::object();
    id["apiVersion"] = text(object, "apiVersion");
    id["kind"] = text(object, "kind");
    const auto meta = object.find("metadata");
    if (meta != object.end() && meta->is_object()) {
        if (const std::string ns = text(*meta, "namespace"); !ns.empty())
            id["namespace"] = ns;
        id["name"] = text(*meta, "name");
    } else {
        id["name"] = "";
    }
    return id;
}

} // namespace fieldscope::core
