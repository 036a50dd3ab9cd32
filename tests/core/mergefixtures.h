#pragma once
// Helpers of the merge tests: the three sides of a golden case, the list semantics a recorded
// OpenAPI document declares, and golden files (FIELDSCOPE_UPDATE_GOLDEN=1 rewrites them; review
// the diff before committing it).
#include "core/objects/openapilists.h"
#include "core/yaml/yaml.h"
#include "goldenfile.h"

#include <QFile>
#include <QString>
#include <QTest>

namespace fieldscope::testing {

inline QString testDataPath(const QString &name)
{
    return QStringLiteral(FIELDSCOPE_TEST_DATA "/") + name;
}

inline QByteArray readTestData(const QString &name)
{
    QFile f(testDataPath(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(f.fileName()));
    return f.readAll();
}

// YAML or JSON (a JSON document is YAML).
inline core::Json loadTestObject(const QString &name)
{
    const QByteArray bytes = readTestData(name);
    auto r = core::yamlToJson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!r)
        qFatal("%s: %s", qPrintable(name), r.error().describe().c_str());
    return r->value;
}

// openapi/FILE's hints for KIND, or a failed test.
inline std::vector<core::ListSemanticsHint> recordedHints(const QString &file, const char *apiVersion, const char *kind)
{
    const QByteArray bytes = readTestData(QStringLiteral("openapi/") + file);
    auto document = core::parseJson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!document)
        qFatal("%s: %s", qPrintable(file), document.error().describe().c_str());
    auto hints = core::listSemanticsFromOpenApi(*document, apiVersion, kind);
    if (!hints)
        qFatal("%s: %s", qPrintable(file), hints.error().describe().c_str());
    return *hints;
}

inline bool matchesGoldenFile(const QString &name, const QString &actual, QString *message)
{
    return matchesGoldenFile(testDataPath(name), name, actual, message);
}

} // namespace fieldscope::testing
