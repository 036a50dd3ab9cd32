#include "widgets/watchstatus.h"

#include "widgets/plaintext.h"

#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QScreen>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace fieldscope::widgets {

namespace {

using State = WatchHealth::State;

// How much a state needs attention; the compact display shows the worst of the others.
int severity(State s)
{
    switch (s) {
    case State::Live: return 0;
    case State::Idle: return 1;
    case State::Listing: return 2;
    case State::Resyncing: return 3;
    case State::BackingOff: return 4;
    case State::Failed: return 5;
    }
    return 0;
}

// Plural forms spelled out: the app loads no translations, and %n with "(s)" reads badly.
QString objectCount(qint64 n)
{
    return n == 1 ? WatchStatusWidget::tr("1 object") : WatchStatusWidget::tr("%1 objects").arg(QLocale().toString(n));
}

QString elided(const QString &s, int max)
{
    return s.size() <= max ? s : s.left(max - 1) + QChar(0x2026);
}

} // namespace

WatchStatusWidget::WatchStatusWidget(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("watchStatus"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->setSpacing(6);
    m_icon = new QLabel(this);
    m_icon->setObjectName(QStringLiteral("watchStateIcon"));
    m_text = plainLabel(new QLabel(this)); // server messages
    m_text->setObjectName(QStringLiteral("watchStatusText"));
    // A long failure message must not widen the window: the label gives way, the tooltip keeps it.
    m_text->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_others = new QToolButton(this);
    m_others->setObjectName(QStringLiteral("otherWatches"));
    m_others->setAutoRaise(true);
    m_others->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_others->setVisible(false);
    connect(m_others, &QToolButton::clicked, this, [this] { showDetails(); });
    layout->addWidget(m_icon);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_others);
    // "last event 3 s ago" and "retry in 4 s" move with the clock; nothing else needs polling.
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &WatchStatusWidget::refresh);
}

void WatchStatusWidget::setStatus(const QString &message, const QList<WatchHealth> &watches)
{
    if (message == m_message && watches == m_watches)
        return;
    m_message = message;
    m_watches = watches;
    if (m_watches.isEmpty())
        m_tick.stop();
    else if (!m_tick.isActive())
        m_tick.start();
    refresh();
}

QString WatchStatusWidget::text() const
{
    return m_text->text();
}

QString WatchStatusWidget::detailsText() const
{
    return toolTip();
}

bool WatchStatusWidget::isBusy() const
{
    return std::any_of(m_watches.cbegin(), m_watches.cend(),
                       [](const WatchHealth &w) { return w.state == State::Listing || w.state == State::Resyncing; });
}

std::pair<qint64, qint64> WatchStatusWidget::listingProgress() const
{
    for (const WatchHealth &w : m_watches)
        if (w.state == State::Listing && w.objects >= 0 && w.expected > 0)
            return {std::min(w.objects, w.expected), w.expected};
    return {0, 0};
}

void WatchStatusWidget::refresh()
{
    const auto now = Clock::now();
    QString line = m_message;
    if (!m_watches.isEmpty()) {
        const QString first = summary(m_watches.first(), now);
        line = line.isEmpty() ? first : line + QStringLiteral("  ·  ") + first;
    }
    m_text->setText(visibleText(line));
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setVisible(!m_watches.isEmpty());
    if (!m_watches.isEmpty())
        m_icon->setPixmap(icon(stateIcon(m_watches.first().state)).pixmap(QSize(size, size), devicePixelRatioF()));
    m_others->setVisible(m_watches.size() > 1);
    if (m_watches.size() > 1) {
        auto worst = std::max_element(m_watches.cbegin() + 1, m_watches.cend(),
                                      [](const WatchHealth &a, const WatchHealth &b) {
                                          return severity(a.state) < severity(b.state);
                                      });
        m_others->setIcon(icon(stateIcon(worst->state)));
        m_others->setText(m_watches.size() == 2 ? tr("1 more watch") : tr("%1 more watches").arg(m_watches.size() - 1));
    }
    const QString html = detailsHtml(m_watches, now);
    setToolTip(m_watches.isEmpty() ? plainToolTip(m_message) : html);
    m_others->setToolTip(html);
    if (m_popupText)
        m_popupText->setText(html);
}

QWidget *WatchStatusWidget::showDetails()
{
    auto *popup = new QFrame(this, Qt::Popup);
    popup->setObjectName(QStringLiteral("watchDetails"));
    popup->setAttribute(Qt::WA_DeleteOnClose);
    popup->setFrameShape(QFrame::StyledPanel);
    auto *layout = new QVBoxLayout(popup);
    m_popupText = new QLabel(detailsHtml(m_watches, Clock::now()), popup);
    m_popupText->setTextFormat(Qt::RichText);
    layout->addWidget(m_popupText);
    connect(popup, &QObject::destroyed, this, [this] { m_popupText = nullptr; });
    popup->adjustSize();
    // Above the status bar, right-aligned with the widget when it would leave the screen.
    QPoint at = mapToGlobal(QPoint(0, -popup->sizeHint().height()));
    if (const QScreen *s = screen())
        at.setX(std::clamp(at.x(), s->availableGeometry().left(),
                           s->availableGeometry().right() - popup->sizeHint().width()));
    popup->move(at);
    popup->show();
    return popup;
}

void WatchStatusWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && !m_watches.isEmpty())
        showDetails();
    QWidget::mousePressEvent(event);
}

void WatchStatusWidget::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // The state icon is a pixmap rendered from the palette: render it again in the new one.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        refresh();
}

QString WatchStatusWidget::ago(Clock::duration elapsed)
{
    using namespace std::chrono;
    const qint64 s = duration_cast<seconds>(elapsed).count();
    if (s < 1)
        return tr("just now");
    if (s < 60)
        return tr("%1 s ago").arg(s);
    if (s < 3600)
        return tr("%1 min ago").arg(s / 60);
    return tr("%1 h %2 min ago").arg(s / 3600).arg((s % 3600) / 60);
}

QString WatchStatusWidget::stateText(const WatchHealth &w, Clock::time_point now)
{
    using namespace std::chrono;
    switch (w.state) {
    case State::Idle: return tr("idle");
    case State::Listing:
        if (w.objects >= 0 && w.expected > w.objects)
            return tr("listing… %1 of ~%2").arg(QLocale().toString(w.objects), objectCount(w.expected));
        return w.objects >= 0 ? tr("listing… %1").arg(objectCount(w.objects)) : tr("listing…");
    case State::Live: return tr("live");
    case State::Resyncing: return tr("resyncing…");
    case State::BackingOff: {
        if (!w.retryAt)
            return tr("backing off");
        // Rounded up: "retry in 1 s" until the retry, never "in 0 s" for most of a second.
        const qint64 s = (duration_cast<milliseconds>(*w.retryAt - now).count() + 999) / 1000;
        return s > 0 ? tr("backing off, retry in %1 s").arg(s) : tr("backing off, retrying");
    }
    case State::Failed: return w.detail.isEmpty() ? tr("failed") : tr("failed: %1").arg(elided(w.detail, 80));
    }
    return {};
}

QString WatchStatusWidget::summary(const WatchHealth &w, Clock::time_point now)
{
    QStringList parts{stateText(w, now)};
    if (w.objects >= 0 && w.state != State::Listing && w.state != State::Failed) // a refused list knows nothing
        parts << objectCount(w.objects);
    if (w.lastEvent)
        parts << tr("last event %1").arg(ago(now - *w.lastEvent));
    return tr("%1: %2").arg(w.name, parts.join(QStringLiteral(" · ")));
}

QString WatchStatusWidget::detailsHtml(const QList<WatchHealth> &watches, Clock::time_point now)
{
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
    for (const WatchHealth &w : watches) {
        QStringList facts{richEscaped(stateText(w, now))};
        if (w.objects >= 0)
            facts << objectCount(w.objects);
        facts << (w.lastEvent ? tr("last event %1").arg(ago(now - *w.lastEvent)) : tr("no event yet"));
        if (!w.resourceVersion.isEmpty())
            facts << tr("resourceVersion %1").arg(richEscaped(w.resourceVersion));
        QString row = QStringLiteral("<tr><td><b>%1</b><br/><small>%2</small></td><td>%3")
                          .arg(richEscaped(w.name), richEscaped(w.purpose), facts.join(QStringLiteral(" · ")));
        if (!w.detail.isEmpty() && w.state != State::Live)
            row += QStringLiteral("<br/><small>%1</small>").arg(richEscaped(w.detail));
        for (const QString &warning : w.warnings)
            row += QStringLiteral("<br/><small>%1</small>").arg(richEscaped(tr("The server warns: %1").arg(warning)));
        html += row + QStringLiteral("</td></tr>");
    }
    return html + QStringLiteral("</table>");
}

Icon WatchStatusWidget::stateIcon(State state)
{
    switch (state) {
    case State::Idle: return Icon::StateIdle;
    case State::Listing: return Icon::StateBusy;
    case State::Live: return Icon::StateLive;
    case State::Resyncing: return Icon::Refresh;
    case State::BackingOff: return Icon::StateWaiting;
    case State::Failed: return Icon::StateFailed;
    }
    return Icon::StateIdle;
}

} // namespace fieldscope::widgets
