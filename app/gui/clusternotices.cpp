#include "app/gui/clusternotices.h"

#include "widgets/clusterview.h"

namespace fieldscope::app {

ClusterNotices::ClusterNotices(widgets::ClusterView *view) : m_view(view) {}

void ClusterNotices::addWarning(const QString &text)
{
    m_warnings << text;
}

void ClusterNotices::addDistinctWarning(const QString &text)
{
    m_warnings << text;
    m_warnings.removeDuplicates();
}

void ClusterNotices::addError(const QString &text)
{
    m_errors << text;
    m_errors.removeDuplicates();
}

void ClusterNotices::show()
{
    if (!m_view)
        return;
    QStringList shown = m_warnings;
    if (m_secretValuesRecorded)
        shown.prepend(tr("Secret values are recorded for this cluster"));
    shown = m_errors + shown;
    m_view->setShownErrors(m_errors);
    m_view->setConnectionWarning(shown.join(QStringLiteral("; ")));
}

} // namespace fieldscope::app
