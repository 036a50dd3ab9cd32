#include "app/lessoncatalog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

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

} // namespace fieldscope::app
