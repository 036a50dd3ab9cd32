// A lesson file (a teacher's YAML, docs/lessons.md): parsed, then every request of every step
// built as `lesson run` would build it, without sending anything. A lesson parseLesson accepts
// must build for every client and write, with a resourceVersion when the runner sends one.
#include "core/lessons/lesson.h"
#include "core/lessons/lessonrequests.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace fieldscope::core;
    auto lesson = parseLesson(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.yaml");
    if (!lesson)
        return 0;
    const Json read = Json{{"metadata", {{"name", "x"}, {"resourceVersion", "7"}}}, {"data", {{"a", "b"}}}};
    for (const LessonStep &step : lesson->steps) {
        for (const LessonRequest &q : step.requests) {
            const bool withVersion = q.precondition != LessonPrecondition::None || q.retry;
            // The first and the last client and write: only digits in strings differ between them.
            for (int client : {1, q.clients}) {
                for (int write : {1, q.repeat}) {
                    for (const Json *r : {&read, static_cast<const Json *>(nullptr)}) {
                        auto built = buildLessonWrite(q, {"/c", "/c/o"}, client, write, r ? *r : Json(),
                                                      withVersion ? "42" : "");
                        if (!built)
                            std::abort(); // parseLesson accepted a request the runner cannot build
                    }
                }
            }
        }
    }
    return 0;
}
