// Names, rosters and the class's state file (see classroom.h).
#include "app/services/classroom.h"

#include "app/services/classroom_p.h"
#include "core/base/privatefiles.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace fieldscope::app {

using classroom_detail::classError;
using classroom_detail::classStatePath;

namespace {

// Names that would read as someone else in the audit log or the History's Who column.
bool isReservedName(const QString &name)
{
    static const QStringList reserved{QStringLiteral("admin"), QStringLiteral("fieldscope-admin"),
                                      QStringLiteral("teacher"), QStringLiteral("kubernetes-admin"),
                                      QStringLiteral("root"), QStringLiteral("system"), QStringLiteral("anonymous"),
                                      QStringLiteral("default"),
                                      // The sandbox's own token users (scripts/fieldscope-cluster).
                                      QStringLiteral("alice"), QStringLiteral("bob")};
    // fieldscope-* covers the sandbox's other users (fieldscope-exec, fieldscope-nobody,
    // fieldscope-cert-admin, ...) and any it adds later.
    return reserved.contains(name) || name.startsWith(QLatin1String("system"))
        || name.startsWith(QLatin1String("kube-")) || name.startsWith(QLatin1String("fieldscope-"));
}

// state.json is ours, but a student could not have written it; still read it with a bound.
constexpr qint64 kMaxStateBytes = qint64(4) * 1024 * 1024;

// What `stop --purge` may be asked to delete: an RFC 1123 label, as the API server requires.
bool isNamespaceName(const QString &name)
{
    static const QRegularExpression label(QStringLiteral("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"));
    return label.match(name).hasMatch();
}

} // namespace

core::Status validateStudentName(const QString &name)
{
    // Shown in messages: a hostile name is cut and its control characters dropped.
    QString shown = name.left(80);
    static const QRegularExpression controls(QStringLiteral("[\\x00-\\x1f\\x7f]"));
    shown.replace(controls, QStringLiteral("?"));
    if (name.isEmpty())
        return classError(core::ErrorCategory::Invalid, QStringLiteral("a student name is empty"));
    if (name.size() > kMaxStudentNameLength)
        return classError(core::ErrorCategory::Invalid,
                          QStringLiteral("student name \"%1\" is longer than %2 characters (student-NAME must be "
                                         "a DNS label)")
                              .arg(shown)
                              .arg(kMaxStudentNameLength));
    static const QRegularExpression label(QStringLiteral("^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"));
    if (!label.match(name).hasMatch())
        return classError(core::ErrorCategory::Invalid,
                          QStringLiteral("student name \"%1\" is not a DNS label (lower-case letters, digits and "
                                         "'-', starting and ending with a letter or digit)")
                              .arg(shown));
    if (isReservedName(name))
        return classError(core::ErrorCategory::Invalid, QStringLiteral("student name \"%1\" is reserved").arg(shown));
    return core::success();
}

core::Result<QStringList> parseRoster(const QByteArray &text)
{
    if (text.size() > kMaxRosterBytes)
        return classError(core::ErrorCategory::Invalid,
                          QStringLiteral("the roster is larger than %1 bytes").arg(kMaxRosterBytes));
    QStringList names;
    const QList<QByteArray> lines = text.split('\n');
    for (int i = 0; i < lines.size(); ++i) {
        QByteArray line = lines[i];
        if (const qsizetype hash = line.indexOf('#'); hash >= 0)
            line.truncate(hash);
        const QString name = QString::fromUtf8(line).trimmed();
        if (name.isEmpty())
            continue;
        if (auto valid = validateStudentName(name); !valid)
            return classError(
                core::ErrorCategory::Invalid,
                QStringLiteral("roster line %1: %2").arg(i + 1).arg(QString::fromStdString(valid.error().message)));
        if (names.contains(name))
            return classError(core::ErrorCategory::Invalid,
                              QStringLiteral("roster line %1: \"%2\" is listed twice").arg(i + 1).arg(name));
        if (names.size() >= kMaxStudents)
            return classError(core::ErrorCategory::Invalid,
                              QStringLiteral("the roster has more than %1 students").arg(kMaxStudents));
        names.append(name);
    }
    if (names.isEmpty())
        return classError(core::ErrorCategory::Invalid, QStringLiteral("the roster names no student"));
    return names;
}

core::Result<ClassState> readClassState(const QString &clusterDir)
{
    const QString path = classStatePath(clusterDir);
    QFile file(path);
    if (!file.exists())
        return classError(core::ErrorCategory::NotFound,
                          QStringLiteral("no class in %1 (no %2)").arg(clusterDir, path));
    if (!file.open(QIODevice::ReadOnly))
        return classError(core::ErrorCategory::Io, QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    const QByteArray bytes = file.read(kMaxStateBytes + 1);
    if (bytes.size() > kMaxStateBytes)
        return classError(core::ErrorCategory::Parse,
                          QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(kMaxStateBytes));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    const auto corrupt = [&](const QString &why) {
        return classError(core::ErrorCategory::Parse, QStringLiteral("%1 is corrupt: %2").arg(path, why));
    };
    if (doc.isNull())
        return corrupt(parseError.errorString());
    if (!doc.isObject())
        return corrupt(QStringLiteral("not a JSON object"));
    const QJsonObject root = doc.object();
    if (root.value(QLatin1String("version")).toInt() != 1)
        return corrupt(QStringLiteral("unknown version"));
    ClassState state;
    state.clusterDir = clusterDir;
    state.running = root.value(QLatin1String("running")).toBool();
    state.classNamespace = root.value(QLatin1String("namespace")).toString(QStringLiteral("class"));
    state.listen = root.value(QLatin1String("listen")).toString();
    state.started = QDateTime::fromString(root.value(QLatin1String("started")).toString(), Qt::ISODateWithMs);
    state.expires = QDateTime::fromString(root.value(QLatin1String("expires")).toString(), Qt::ISODateWithMs);
    state.outDir = root.value(QLatin1String("outDir")).toString();
    if (!isNamespaceName(state.classNamespace))
        return corrupt(QStringLiteral("the class namespace is not a DNS label"));
    if (!state.started.isValid() || !state.expires.isValid())
        return corrupt(QStringLiteral("started or expires is not an RFC 3339 time"));
    if (!root.value(QLatin1String("students")).isArray())
        return corrupt(QStringLiteral("students is not an array"));
    const QJsonArray students = root.value(QLatin1String("students")).toArray();
    for (const auto &value : students) {
        const QJsonObject o = value.toObject();
        ClassStudent student{o.value(QLatin1String("name")).toString(), o.value(QLatin1String("namespace")).toString(),
                             o.value(QLatin1String("kubeconfig")).toString()};
        if (!validateStudentName(student.name))
            return corrupt(QStringLiteral("a student name is not valid"));
        if (!isNamespaceName(student.ownNamespace))
            return corrupt(QStringLiteral("a student's namespace is not a DNS label"));
        state.students.append(student);
    }
    return state;
}

core::Status classroom_detail::writeClassState(const ClassState &state)
{
    QJsonArray students;
    for (const ClassStudent &s : state.students)
        students.append(QJsonObject{{QStringLiteral("name"), s.name},
                                    {QStringLiteral("namespace"), s.ownNamespace},
                                    {QStringLiteral("kubeconfig"), s.kubeconfigPath}});
    const QJsonObject root{{QStringLiteral("version"), 1},
                           {QStringLiteral("running"), state.running},
                           {QStringLiteral("namespace"), state.classNamespace},
                           {QStringLiteral("listen"), state.listen},
                           {QStringLiteral("started"), state.started.toUTC().toString(Qt::ISODateWithMs)},
                           {QStringLiteral("expires"), state.expires.toUTC().toString(Qt::ISODateWithMs)},
                           {QStringLiteral("outDir"), state.outDir},
                           {QStringLiteral("students"), students}};
    if (auto made = core::makePrivateDirectory(classroom_detail::classDir(state.clusterDir).toStdString(), true); !made)
        return made.error();
    return core::writePrivateFileDurably(classStatePath(state.clusterDir).toStdString(),
                                         QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString());
}

bool ClassRequest::isWrite() const
{
    return verb == QLatin1String("create") || verb == QLatin1String("update") || verb == QLatin1String("patch")
        || verb == QLatin1String("delete") || verb == QLatin1String("deletecollection");
}

bool ClassRequest::refused() const
{
    return isWrite() && code >= 400;
}

} // namespace fieldscope::app
