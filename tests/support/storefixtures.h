#pragma once
// What the history store tests share: where a test's store lives (a file in the test's temporary
// folder, or, in a test built with FIELDSCOPE_TEST_POSTGRES, a fresh database on the PostgreSQL
// fixture) and every version a store holds, as text, to compare with what was written.
#include "core/history/historystore.h"

#include <QTemporaryDir>

#include <map>
#include <string>
#ifdef FIELDSCOPE_TEST_POSTGRES
#include "testpostgres.h"
#endif

namespace storefixtures {

using namespace fieldscope::core;

// A new store's location named `name`; the PostgreSQL build drops and makes that database anew.
inline std::string storeLocation(const QTemporaryDir &dir, const char *name)
{
#ifdef FIELDSCOPE_TEST_POSTGRES
    (void)dir;
    return testpostgres::freshDatabase(QString::fromLatin1(name));
#else
    return dir.filePath(QLatin1String(name)).toStdString();
#endif
}

// Every version of every object, as stored: uid -> (rv -> text).
inline std::map<std::string, std::map<std::string, std::string>> everyVersion(HistoryStore &store)
{
    std::map<std::string, std::map<std::string, std::string>> out;
    const auto objects = store.allObjects().value();
    for (const auto &o : objects) {
        const auto versions = store.versions(o.id).value();
        for (const auto &v : versions)
            out[o.ref.uid][v.resourceVersion] = toJsonText(store.loadVersion(o.id, v.seq).value());
    }
    return out;
}

} // namespace storefixtures
