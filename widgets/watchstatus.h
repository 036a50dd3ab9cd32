#pragma once
// WatchHealth: what the status bar knows about one watch a cluster view runs (the shown
// resource, the namespaces, the selected object's events). WatchStatusWidget: the status bar's
// compact display of them: the first watch's state, object count and "last event 3 s ago",
// the others as a count with the worst state's icon; a click (or the tooltip) lists each one.
// Times are steady-clock points, so a cheap 1 s timer keeps the "ago" and "retry in" figures
// current without asking anyone. Lives on the GUI thread.
#include "widgets/icons.h"

#include <QList>
#include <QTimer>
#include <QWidget>

#include <chrono>
#include <optional>
#include <utility>

class QLabel;
class QToolButton;

namespace fieldscope::widgets {

struct WatchHealth {
    using Clock = std::chrono::steady_clock;
    enum class State { Idle, Listing, Live, Resyncing, BackingOff, Failed };

    QString name;    // "configmaps.v1 in all namespaces"
    QString purpose; // what it feeds: "object table", "namespace selector", ...
    State state = State::Idle;
    qint64 objects = -1;  // -1 = unknown
    qint64 expected = -1; // while listing: the total the server estimates (-1 = unknown)
    QString resourceVersion;
    QString detail;       // why it backs off or failed
    QStringList warnings; // what the server warned (Warning headers: a deprecated version, a policy)
    std::optional<Clock::time_point> lastEvent;
    std::optional<Clock::time_point> retryAt;

    bool operator==(const WatchHealth &) const = default;
};

class WatchStatusWidget : public QWidget
{
    Q_OBJECT
public:
    using Clock = WatchHealth::Clock;
    explicit WatchStatusWidget(QWidget *parent = nullptr);

    // MESSAGE: a line about the connection ("Connecting…", an error) shown before the watches.
    void setStatus(const QString &message, const QList<WatchHealth> &watches);
    const QList<WatchHealth> &watches() const { return m_watches; }
    QString text() const;        // the line as shown
    QString detailsText() const; // the per-watch list as shown in the tooltip and the popup
    bool isBusy() const;         // a watch is listing or resyncing
    // The first listing watch with a known total: (objects so far, total); (0, 0) when none.
    std::pair<qint64, qint64> listingProgress() const;
    // The per-watch list in a popup under the widget (also on a click).
    QWidget *showDetails();

    // The wording, pure functions of their arguments (unit-tested).
    static QString ago(Clock::duration elapsed);
    static QString stateText(const WatchHealth &w, Clock::time_point now);
    static QString summary(const WatchHealth &w, Clock::time_point now);
    static QString detailsHtml(const QList<WatchHealth> &watches, Clock::time_point now);
    static Icon stateIcon(WatchHealth::State state);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void refresh();

    QString m_message;
    QList<WatchHealth> m_watches;
    QLabel *m_icon;
    QLabel *m_text;
    QToolButton *m_others;
    QTimer m_tick;
    QLabel *m_popupText = nullptr; // while the popup is open
};

} // namespace fieldscope::widgets
