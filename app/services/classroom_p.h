#pragma once
// Helpers the classroom files share (not part of the contract in classroom.h).
#include "app/services/classroom.h"
#include "core/base/error.h"

namespace fieldscope::app::classroom_detail {

inline core::Error classError(core::ErrorCategory category, const QString &message)
{
    return core::Error::make(category, message.toStdString());
}

inline QString classDir(const QString &clusterDir)
{
    return clusterDir + QStringLiteral("/class");
}

inline QString classStatePath(const QString &clusterDir)
{
    return classDir(clusterDir) + QStringLiteral("/state.json");
}

// Writes DIR/class/state.json (0600, atomically) in the format readClassState reads.
core::Status writeClassState(const ClassState &state);

} // namespace fieldscope::app::classroom_detail
