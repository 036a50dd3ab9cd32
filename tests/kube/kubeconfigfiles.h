#pragma once
// What the kubeconfig and credential tests (tst_kubeconfig, tst_kubeconfig_hostile,
// tst_credentialfiles) build their files and environments with.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QTest>

#include <initializer_list>
#include <utility>

namespace fieldscope::testing {

// A controlled environment: no HOME config, no KUBECONFIG, no service account unless asked.
inline QProcessEnvironment kubeEnv(std::initializer_list<std::pair<const char *, QString>> vars, const QString &home)
{
    QProcessEnvironment e;
    e.insert(QStringLiteral("HOME"), home);
    for (const auto &[k, v] : vars)
        e.insert(QLatin1String(k), v);
    return e;
}

inline void writeFile(const QString &path, const QByteArray &content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(content);
}

} // namespace fieldscope::testing
