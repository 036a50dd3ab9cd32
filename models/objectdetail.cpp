#include "models/objectdetail.h"

#include "core/base/json.h"
#include "core/ownership/blame.h"
#include "core/yaml/yaml.h"

namespace fieldscope::models {

namespace {

QString str(const core::Json &j, const char *key)
{
    if (!j.is_object() || !j.contains(key) || !j[key].is_string())
        return {};
    return QString::fromStdString(j[key].get<std::string>());
}

QStringList mapEntries(const core::Json &meta, const char *key)
{
    QStringList out;
    if (!meta.contains(key) || !meta[key].is_object())
        return out;
    for (const auto &[k, v] : meta[key].items())
        out << QString::fromStdString(k) + u'='
                   + (v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString());
    return out;
}

} // namespace

namespace {

ObjectDetail buildUnguarded(const QByteArray &json);

} // namespace

ObjectDetail buildObjectDetail(const QByteArray &json)
{
    // Runs as a worker job (the detail pane's QtConcurrent task): its last boundary. A library
    // exception on the server's bytes (YAML emitter, ownership join) becomes the pane's error.
    try {
        return buildUnguarded(json);
    } catch (const std::exception &e) {
        ObjectDetail d;
        d.error = QStringLiteral("the object could not be shown: %1").arg(QString::fromUtf8(e.what()));
        return d;
    }
}

namespace {

ObjectDetail buildUnguarded(const QByteArray &json)
{
    ObjectDetail d;
    auto parsed = core::parseJson(std::string_view(json.constData(), std::size_t(json.size())));
    if (!parsed || !parsed->is_object()) {
        d.error = parsed ? QStringLiteral("not a JSON object") : QString::fromStdString(parsed.error().describe());
        return d;
    }
    const core::Json &obj = *parsed;
    const core::Json meta = obj.contains("metadata") && obj["metadata"].is_object() ? obj["metadata"]
                                                                                    : core::Json::object();
    d.kind = str(obj, "kind");
    d.apiVersion = str(obj, "apiVersion");
    d.name = str(meta, "name");
    d.namespace_ = str(meta, "namespace");
    d.uid = str(meta, "uid");
    d.resourceVersion = str(meta, "resourceVersion");
    d.created = str(meta, "creationTimestamp");
    if (meta.contains("generation") && meta["generation"].is_number_integer())
        d.generation = meta["generation"].get<qint64>();
    d.labels = mapEntries(meta, "labels");
    d.annotations = mapEntries(meta, "annotations");
    if (meta.contains("ownerReferences") && meta["ownerReferences"].is_array())
        for (const auto &o : meta["ownerReferences"])
            d.ownerReferences << str(o, "kind") + u'/' + str(o, "name");
    if (meta.contains("finalizers") && meta["finalizers"].is_array())
        for (const auto &f : meta["finalizers"])
            if (f.is_string())
                d.finalizers << QString::fromStdString(f.get<std::string>());
    if (obj.contains("status") && obj["status"].is_object() && obj["status"].contains("conditions")
        && obj["status"]["conditions"].is_array())
        for (const auto &c : obj["status"]["conditions"]) {
            const QString reason = str(c, "reason");
            d.conditions << str(c, "type") + u'=' + str(c, "status")
                                + (reason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(reason));
        }

    auto tree = core::OwnershipTree::build(obj);
    if (tree)
        d.tree = std::move(*tree);
    for (const auto &e : d.tree.entries()) {
        d.managerLabels << QString::fromStdString(e.label());
        d.managerNames << QString::fromStdString(e.manager);
    }
    const core::AnnotatedYaml yaml = core::jsonToAnnotatedYaml(core::withoutManagedFields(obj));
    d.yaml = QString::fromStdString(yaml.text);
    d.lineOwners.resize(qsizetype(yaml.linePointers.size()));
    std::size_t start = 0;
    for (std::size_t i = 0; i < yaml.linePointers.size(); ++i) {
        d.linePointers << QString::fromStdString(yaml.linePointers[i]);
        const std::size_t nl = yaml.text.find('\n', start);
        const std::string_view line = std::string_view(yaml.text).substr(start, nl - start);
        start = nl + 1;
        for (const auto &o : core::lineOwners(d.tree, yaml.linePointers[i], line))
            d.lineOwners[qsizetype(i)].push_back(int(o.entry));
    }
    return d;
}

} // namespace

} // namespace fieldscope::models
