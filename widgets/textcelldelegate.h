#pragma once
// TextCellDelegate: paints plain text cells the way QStyledItemDelegate does, from a cache of
// laid-out text.
//
// Why: at 1,000 watch events/s the object table repaints its visible rows every batch, and
// QStyledItemDelegate lays out every cell's text anew each time (QCommonStyle measures it once
// for the cell's rectangle and again to draw it, through QTextLayout): ~7 ms per 1200x800 frame,
// half of a frame's budget (bench/bench_table). Here a cell's text is shaped once per (text,
// font, width) into a QStaticText and only drawn after that. Cells with a check box, an icon,
// word wrap, a decorated font (struck-out: deleted objects) or an editor open go to
// QStyledItemDelegate unchanged.
#include <QCache>
#include <QFont>
#include <QStaticText>
#include <QStyledItemDelegate>

namespace fieldscope::widgets {

class TextCellDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit TextCellDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    // Server strings: control and bidi characters visible, tooltips plain (widgets/plaintext.h).
    QString displayText(const QVariant &value, const QLocale &locale) const override;
    bool helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
                   const QModelIndex &index) override;

    // Laid-out texts kept (a screenful of cells many times over); for tests and the bench.
    int cachedTexts() const { return int(m_cache.size()); }

    struct Key {
        QString text;
        QFont font;
        int width;
        Qt::TextElideMode elide;
        bool operator==(const Key &o) const
        {
            return width == o.width && elide == o.elide && text == o.text && font == o.font;
        }
    };

private:
    const QStaticText &laidOut(const QString &text, const QFont &font, int width, Qt::TextElideMode elide) const;

    mutable QCache<Key, QStaticText> m_cache;
};

size_t qHash(const TextCellDelegate::Key &key, size_t seed = 0);

} // namespace fieldscope::widgets
