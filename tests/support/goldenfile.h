#pragma once
// Golden files: compares a test's text with a file under tests/data, naming the first line that
// differs. FIELDSCOPE_UPDATE_GOLDEN=1 rewrites the file instead (review the diff before committing
// it). Shared by the suites that keep golden files (ownership, merge, list semantics).
#include <QFile>
#include <QString>
#include <QStringList>

#include <algorithm>

namespace fieldscope::testing {

// `path`: the golden file; `label`: how the message names it.
inline bool matchesGoldenFile(const QString &path, const QString &label, const QString &actual, QString *message)
{
    QFile f(path);
    if (qEnvironmentVariableIsSet("FIELDSCOPE_UPDATE_GOLDEN")) {
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return false;
        f.write(actual.toUtf8());
        return true;
    }
    if (!f.open(QIODevice::ReadOnly)) {
        *message = QStringLiteral("missing golden file ") + f.fileName();
        return false;
    }
    const QString expected = QString::fromUtf8(f.readAll());
    if (expected == actual)
        return true;
    const QStringList e = expected.split(QLatin1Char('\n'));
    const QStringList a = actual.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < std::max(e.size(), a.size()); ++i)
        if (e.value(i) != a.value(i)) {
            *message = QStringLiteral("%1 line %2:\n expected: %3\n actual:   %4")
                           .arg(label)
                           .arg(i + 1)
                           .arg(e.value(i), a.value(i));
            return false;
        }
    *message = label + QStringLiteral(": differs only in line endings");
    return false;
}

} // namespace fieldscope::testing
