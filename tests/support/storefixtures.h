#pragma once
// What the history store tests share: where a test's store lives (a file in the test's temporary
// folder, or, when ctest runs the test as NAME_postgres, a fresh database on the PostgreSQL
// fixture) and every version a store holds, as text, to compare with what was written.
#include "core/history/historystore.h"
#include "testpostgres.h"

#include <QTemporaryDir>
#include <QtGlobal>

#include <map>
#include <string>

namespace storefixtures {

using namespace fieldscope::core;

// One executable runs on both stores: tests/core/CMakeLists.txt (fieldscope_store_test) registers
// it twice, the second time with FIELDSCOPE_TEST_STORE=postgres and the fixture's environment.
// Any other value, or postgres without the fixture, stops the test: a misspelt registration must
// not pass quietly on the file.
inline bool onPostgres()
{
    const QByteArray store = qgetenv("FIELDSCOPE_TEST_STORE");
    if (store.isEmpty() || store == "file")
        return false;
    if (store != "postgres")
        qFatal("FIELDSCOPE_TEST_STORE is \"%s\": file or postgres", store.constData());
    if (testpostgres::folder().isEmpty())
        qFatal("FIELDSCOPE_TEST_STORE=postgres without the PostgreSQL fixture (FIELDSCOPE_TEST_PG_DIR)");
    return true;
}

// A new store's location named `name`; on PostgreSQL that database is dropped and made anew.
inline std::string storeLocation(const QTemporaryDir &dir, const char *name)
{
    if (onPostgres())
        return testpostgres::freshDatabase(QString::fromLatin1(name));
    return dir.filePath(QLatin1String(name)).toStdString();
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
