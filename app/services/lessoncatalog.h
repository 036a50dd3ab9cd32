#pragma once
// Where lessons come from: the ones we ship (built into the binary from resources/lessons/), the
// user's folder (~/.local/share/fieldscope/lessons, XDG) and folders named with --lessons. A
// lesson with the name of an earlier one replaces it, so a teacher can adapt a shipped lesson.
#include "core/lessons/lesson.h"
#include "kube/kubeconfig.h"
#include "lessons/lessonrunner.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace fieldscope::app {

struct LessonCatalog {
    std::vector<core::Lesson> lessons; // by order, then name
    std::vector<std::string> errors;   // files that were refused, "FILE:LINE: reason"
    const core::Lesson *find(const std::string &name) const;
};

QString userLessonDir();
// Reads one lesson file (a path, or ":/lessons/..." for a shipped one).
core::Result<core::Lesson> readLessonFile(const QString &path);
// Built-in lessons, then the user's folder, then `extraDirs` in order.
LessonCatalog loadLessons(const QStringList &extraDirs = {});

// The people a lesson's requests are sent as (`as: alice`): the context CONTEXT-alice of the same
// kubeconfig file, which must talk to the same server (the sandbox's sandbox-alice and
// sandbox-bob). Each is connected when a step first needs it, on the runner's thread.
lessons::LessonRunner::ResolvePerson lessonPeople(const kube::ResolvedConfig &config);

} // namespace fieldscope::app
