#include "widgets/textcelldelegate.h"

#include "widgets/plaintext.h"

#include <QApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QStyle>

namespace fieldscope::widgets {

namespace {
constexpr int kCachedTexts = 8192; // ~40 screens of 25 rows x 8 columns
}

size_t qHash(const TextCellDelegate::Key &key, size_t seed)
{
    return qHashMulti(seed, key.text, key.font, key.width, int(key.elide));
}

TextCellDelegate::TextCellDelegate(QObject *parent) : QStyledItemDelegate(parent), m_cache(kCachedTexts) {}

const QStaticText &TextCellDelegate::laidOut(const QString &text, const QFont &font, int width,
                                             Qt::TextElideMode elide) const
{
    Key key{text, font, width, elide};
    if (QStaticText *hit = m_cache.object(key))
        return *hit;
    auto *st = new QStaticText(text);
    st->setTextFormat(Qt::PlainText);
    st->setPerformanceHint(QStaticText::AggressiveCaching);
    st->prepare(QTransform(), font); // shapes the text: its width is known from here on
    if (st->size().width() > width) {
        st->setText(QFontMetrics(font).elidedText(text, elide, width));
        st->prepare(QTransform(), font);
    }
    m_cache.insert(key, st); // QCache copies the key
    return *st;
}

// Mirrors QCommonStyle's CE_ItemViewItem for a text-only cell: the item panel (selection,
// alternate row, hover), the text in the palette's (highlighted) text colour inset by the focus
// frame margin, elided and aligned as the option says, then the focus frame.
QString TextCellDelegate::displayText(const QVariant &value, const QLocale &locale) const
{
    return visibleText(QStyledItemDelegate::displayText(value, locale));
}

bool TextCellDelegate::helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
                                 const QModelIndex &index)
{
    return showPlainToolTip(event, view, index) || QStyledItemDelegate::helpEvent(event, view, option, index);
}

void TextCellDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const bool plain = !(opt.features
                         & (QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::HasDecoration
                            | QStyleOptionViewItem::WrapText))
                    && !(opt.state & QStyle::State_Editing)
                    && !opt.text.contains(QLatin1Char('\n'))
                    // QStaticText draws glyphs only: no strike-out, underline or overline.
                    && !opt.font.strikeOut() && !opt.font.underline() && !opt.font.overline();
    if (!plain) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    painter->save();
    painter->setClipRect(opt.rect);
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);

    if (!opt.text.isEmpty()) {
        QPalette::ColorGroup cg = opt.state & QStyle::State_Enabled ? QPalette::Normal : QPalette::Disabled;
        if (cg == QPalette::Normal && !(opt.state & QStyle::State_Active))
            cg = QPalette::Inactive;
        painter->setPen(opt.palette.color(cg, opt.state & QStyle::State_Selected ? QPalette::HighlightedText
                                                                                 : QPalette::Text));
        painter->setFont(opt.font);
        const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
        const QRect textRect = opt.rect.adjusted(margin, 0, -margin, 0);
        const QStaticText &text = laidOut(opt.text, opt.font, std::max(0, textRect.width()), opt.textElideMode);
        const QRect at = QStyle::alignedRect(opt.direction,
                                             QStyle::visualAlignment(opt.direction, opt.displayAlignment),
                                             text.size().toSize(), textRect);
        painter->drawStaticText(at.topLeft(), text);
    }

    if (opt.state & QStyle::State_HasFocus) {
        QStyleOptionFocusRect focus;
        focus.QStyleOption::operator=(opt);
        focus.rect = style->subElementRect(QStyle::SE_ItemViewItemFocusRect, &opt, widget);
        focus.state |= QStyle::State_KeyboardFocusChange | QStyle::State_Item;
        const QPalette::ColorGroup cg = opt.state & QStyle::State_Enabled ? QPalette::Normal : QPalette::Disabled;
        focus.backgroundColor = opt.palette.color(cg, opt.state & QStyle::State_Selected ? QPalette::Highlight
                                                                                         : QPalette::Window);
        style->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, painter, widget);
    }
    painter->restore();
}

} // namespace fieldscope::widgets
