#pragma once
// ClusterNotices: one job: the list of what a cluster's view warns about (TLS verification off, a
// discovery refresh that failed, a table batch that was missed, an audit log that cannot be
// followed) and of the errors shown before the warnings (history recording failing). The view's
// banner holds one text, so the parts of a ClusterController add here and this shows them all.
// Lives on the GUI thread and does no work elsewhere: a worker's failure reaches it queued.
// Owned by the ClusterController, declared before the parts that hold a reference to it.
#include <QCoreApplication>
#include <QPointer>
#include <QStringList>

namespace fieldscope::widgets {
class ClusterView;
}

namespace fieldscope::app {

class ClusterNotices
{
    Q_DECLARE_TR_FUNCTIONS(ClusterNotices)
public:
    explicit ClusterNotices(widgets::ClusterView *view);

    // Nothing changes on screen until show(). addWarning() lists a text as often as it comes;
    // addDistinctWarning() and addError() keep one of each (and drop repeats already listed).
    void addWarning(const QString &text);
    void addDistinctWarning(const QString &text);
    void addError(const QString &text);
    // "Secret values are recorded for this cluster" leads the warnings while recording does so.
    void setSecretValuesRecorded(bool on) { m_secretValuesRecorded = on; }
    void show();

private:
    QPointer<widgets::ClusterView> m_view;
    QStringList m_warnings;
    QStringList m_errors; // shown before the warnings
    bool m_secretValuesRecorded = false;
};

} // namespace fieldscope::app
