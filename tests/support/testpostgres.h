#pragma once
// The test PostgreSQL server (scripts/fieldscope-postgres, started by ctest's `postgres` fixture):
// a fresh database per test, so the same tests run against the SQLite file and a team store.
#include <QByteArray>
#include <QFile>
#include <QProcessEnvironment>
#include <QString>

#include <libpq-fe.h>

#include <stdexcept>
#include <string>

namespace testpostgres {

// The fixture's folder (FIELDSCOPE_TEST_PG_DIR); empty when the test runs without it.
inline QString folder()
{
    return QProcessEnvironment::systemEnvironment().value(QStringLiteral("FIELDSCOPE_TEST_PG_DIR"));
}

inline QString readFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read " + path.toStdString() + " (is the postgres fixture running?)");
    return QString::fromUtf8(f.readAll()).trimmed();
}

// The superuser's URL of `database` (Unix socket, no password).
inline std::string urlOf(const std::string &database)
{
    const QString dir = folder();
    return "postgresql:///" + database + "?host=" + readFile(dir + QStringLiteral("/socket")).toStdString()
         + "&port=" + readFile(dir + QStringLiteral("/port")).toStdString() + "&user=postgres";
}

// The loopback TCP address (password authentication) for `role` on `database`.
inline std::string tcpUrlOf(const std::string &role, const std::string &database)
{
    return "postgresql://" + role + "@127.0.0.1:" + readFile(folder() + QStringLiteral("/port")).toStdString() + "/"
         + database;
}

// Points libpq at a password file holding `line` ("HOST:PORT:DB:ROLE:PASSWORD"), 0600 as libpq
// requires; unset PGPASSFILE when done.
inline bool usePasswordFile(const QString &path, const QByteArray &line)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(line + '\n') != line.size() + 1)
        return false;
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    qputenv("PGPASSFILE", path.toUtf8());
    return true;
}

// Runs SQL as the superuser on `database`; throws with the server's message when it fails.
inline void run(const std::string &database, const std::string &sql)
{
    PGconn *c = PQconnectdb(urlOf(database).c_str());
    if (PQstatus(c) != CONNECTION_OK) {
        const std::string why = PQerrorMessage(c);
        PQfinish(c);
        throw std::runtime_error("test postgres: " + why);
    }
    PQsetNoticeProcessor(
        c, [](void *, const char *) {}, nullptr);
    PGresult *r = PQexec(c, sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    const std::string why = PQresultErrorMessage(r);
    PQclear(r);
    PQfinish(c);
    if (!ok)
        throw std::runtime_error("test postgres: " + sql + ": " + why);
}

// A new, empty database named after the test (name lower-cased, non-alphanumerics as '_'),
// dropped first if an earlier run left it; its superuser URL.
inline std::string freshDatabase(const QString &name)
{
    std::string db = "t_";
    const QString lower = name.toLower();
    for (QChar ch : lower)
        db += ch.isLetterOrNumber() && ch.unicode() < 128 ? char(ch.unicode()) : '_';
    run("postgres", "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    run("postgres", "CREATE DATABASE " + db);
    return urlOf(db);
}

} // namespace testpostgres
