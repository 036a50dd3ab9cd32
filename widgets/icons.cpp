#include "widgets/icons.h"

#include <QCoreApplication>
#include <QFile>
#include <QGuiApplication>
#include <QHash>
#include <QIconEngine>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QSvgRenderer>

#include <iterator>

namespace fieldscope::widgets {

namespace {

// Renders one SVG with its currentColor taken from the application palette at paint time.
// Pixmaps are cached per (pixel size, mode, colour): a palette change renders afresh.
class PaletteSvgEngine : public QIconEngine
{
public:
    explicit PaletteSvgEngine(QString path) : m_path(std::move(path)) {}

    QIconEngine *clone() const override { return new PaletteSvgEngine(m_path); }
    QString key() const override { return QStringLiteral("fieldscope-palette-svg"); }

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override
    {
        const qreal dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
        QPixmap pm = pixmap(rect.size() * dpr, mode, state);
        pm.setDevicePixelRatio(dpr);
        painter->drawPixmap(rect, pm);
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State) override
    {
        const QColor colour = colourFor(mode);
        const QString cacheKey = QStringLiteral("%1x%2/%3/%4")
                                     .arg(size.width())
                                     .arg(size.height())
                                     .arg(int(mode))
                                     .arg(colour.name(QColor::HexArgb));
        if (auto it = m_cache.constFind(cacheKey); it != m_cache.cend())
            return *it;
        QPixmap pm(size);
        pm.fill(Qt::transparent);
        QSvgRenderer renderer(svgWith(colour));
        QPainter p(&pm);
        // Keep the aspect ratio: an icon asked for at a non-square size is centred.
        QSizeF drawn = renderer.defaultSize().scaled(size, Qt::KeepAspectRatio);
        renderer.render(&p, QRectF(QPointF((size.width() - drawn.width()) / 2, (size.height() - drawn.height()) / 2),
                                   drawn));
        p.end();
        if (m_cache.size() > 64) // a handful of sizes and modes per icon; bound it anyway
            m_cache.clear();
        m_cache.insert(cacheKey, pm);
        return pm;
    }

    QSize actualSize(const QSize &size, QIcon::Mode, QIcon::State) override { return size; }

private:
    static QColor colourFor(QIcon::Mode mode)
    {
        const QPalette p = QGuiApplication::palette();
        switch (mode) {
        case QIcon::Disabled: return p.color(QPalette::Disabled, QPalette::WindowText);
        case QIcon::Selected: return p.color(QPalette::Active, QPalette::HighlightedText);
        default: return p.color(QPalette::Active, QPalette::WindowText);
        }
    }

    QByteArray svgWith(const QColor &colour)
    {
        if (m_svg.isEmpty()) {
            QFile f(m_path);
            if (f.open(QIODevice::ReadOnly))
                m_svg = f.readAll();
        }
        QByteArray out = m_svg;
        // QtSvg 6.4 has no reliable currentColor; substitute the colour (opacity attributes stay).
        return out.replace("currentColor", colour.name(QColor::HexRgb).toLatin1());
    }

    QString m_path;
    QByteArray m_svg;
    QHash<QString, QPixmap> m_cache;
};

} // namespace

QString iconPath(Icon which)
{
    static const char *const names[] = {"fieldscope",    "kind",         "namespace",       "group",      "refresh",
                                        "history",       "ownership",    "events",          "summary",    "yaml",
                                        "favourite",     "open",         "state-connected", "state-live", "state-busy",
                                        "state-waiting", "state-failed", "state-idle"};
    static_assert(std::size(names) == std::size_t(Icon::StateIdle) + 1, "one file per Icon");
    return QStringLiteral(":/icons/%1.svg").arg(QLatin1String(names[int(which)]));
}

QList<Icon> allIcons()
{
    QList<Icon> out;
    for (int i = 0; i <= int(Icon::StateIdle); ++i)
        out << Icon(i);
    return out;
}

QIcon icon(Icon which)
{
    // QIcon shares its engine: one engine (and pixmap cache) per icon for the whole app.
    static QHash<int, QIcon> icons;
    static const bool cleanup = [] { // the pixmaps must go before the application does
        qAddPostRoutine([] { icons.clear(); });
        return true;
    }();
    Q_UNUSED(cleanup);
    auto it = icons.find(int(which));
    if (it == icons.end())
        it = icons.insert(int(which), QIcon(new PaletteSvgEngine(iconPath(which))));
    return *it;
}

} // namespace fieldscope::widgets
