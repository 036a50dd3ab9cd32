#include "app/services/lessoncatalog.h"

#include "kube/connection.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>
#include <memory>
#include <vector>

namespace fieldscope::app {

const core::Lesson *LessonCatalog::find(const std::string &name) const
{
    auto it = std::find_if(lessons.begin(), lessons.end(), [&](const core::Lesson &l) { return l.name == name; });
    return it == lessons.end() ? nullptr : &*it;
}

QString userLessonDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
         + QStringLiteral("/fieldscope/lessons");
}

core::Result<core::Lesson> readLessonFile(const QString &path)
{
    const std::string name = path.toStdString();
    QFile file(path);
    if (!QFileInfo(path).isFile())
        return core::Error::make(core::ErrorCategory::Io, name + ": not a file");
    if (file.size() > qint64(core::kMaxLessonFileBytes))
        return core::Error::make(core::ErrorCategory::Parse, name + ": a lesson file is at most 1 MiB", name);
    if (!file.open(QIODevice::ReadOnly))
        return core::Error::make(core::ErrorCategory::Io, name + ": " + file.errorString().toStdString());
    const QByteArray text = file.read(qint64(core::kMaxLessonFileBytes) + 1);
    return core::parseLesson(std::string_view(text.constData(), std::size_t(text.size())), name);
}

LessonCatalog loadLessons(const QStringList &extraDirs)
{
    LessonCatalog out;
    QStringList dirs{QStringLiteral(":/lessons"), userLessonDir()};
    dirs += extraDirs;
    for (const QString &dir : dirs) {
        const QDir d(dir);
        if (!d.exists()) {
            if (extraDirs.contains(dir))
                out.errors.push_back(dir.toStdString() + ": no such folder");
            continue;
        }
        const QStringList files = d.entryList({QStringLiteral("*.yaml"), QStringLiteral("*.yml")},
                                              QDir::Files | QDir::Readable, QDir::Name);
        for (const QString &f : files) {
            auto lesson = readLessonFile(d.filePath(f));
            if (!lesson) {
                out.errors.push_back(lesson.error().message);
                continue;
            }
            auto same = std::find_if(out.lessons.begin(), out.lessons.end(),
                                     [&](const core::Lesson &l) { return l.name == lesson->name; });
            if (same != out.lessons.end())
                *same = std::move(*lesson);
            else
                out.lessons.push_back(std::move(*lesson));
        }
    }
    std::stable_sort(out.lessons.begin(), out.lessons.end(), [](const core::Lesson &a, const core::Lesson &b) {
        const int oa = a.order == 0 ? 1'000'000 : a.order, ob = b.order == 0 ? 1'000'000 : b.order;
        return oa != ob ? oa < ob : a.name < b.name;
    });
    return out;
}

lessons::LessonRunner::ResolvePerson lessonPeople(const kube::ResolvedConfig &config)
{
    // The connections stay open as long as the runner holds this function: a transport
    // configuration is only usable while the connection it came from lives.
    auto open = std::make_shared<std::vector<kube::Connection>>();
    return [file = config.sourceFile, context = config.contextName, server = config.server,
            open](const std::string &person) -> core::Result<kube::TransportConfig> {
        kube::ConnectionOptions o;
        o.kubeconfigPath = file;
        o.context = context + "-" + person;
        auto c = kube::connect(o);
        if (!c)
            return core::Error::make(core::ErrorCategory::Config,
                                     "this lesson sends requests as " + person + ": it needs the context " + o.context
                                         + " in " + file + " (the sandbox has it): " + c.error().describe());
        if (c->config.server != server)
            return core::Error::make(core::ErrorCategory::Config, "the context " + o.context + " talks to "
                                                                      + c->config.server + ", not to " + server);
        open->push_back(std::move(*c));
        return open->back().transport->config();
    };
}

} // namespace fieldscope::app
