#include "widgets/plaintext.h"

#include "core/visibletext.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QLabel>
#include <QTextDocument>
#include <QToolTip>

namespace fieldscope::widgets {

QString visibleText(const QString &untrusted, bool keepNewlines)
{
    return core::visibleText(untrusted, keepNewlines);
}

QString richEscaped(const QString &untrusted)
{
    return core::visibleText(untrusted).toHtmlEscaped();
}

QString plainToolTip(const QString &untrusted)
{
    const QString visible = core::visibleText(untrusted, true);
    if (!Qt::mightBeRichText(visible))
        return visible;
    // Escaped inside a tag Qt always reads as rich text: the escapes render as the characters.
    return QStringLiteral("<p style=\"white-space:pre-wrap\">%1</p>").arg(visible.toHtmlEscaped());
}

QString actionText(const QString &untrusted)
{
    QString t = core::visibleText(untrusted);
    return t.replace(u'&', QStringLiteral("&&"));
}

QLabel *plainLabel(QLabel *label)
{
    label->setTextFormat(Qt::PlainText);
    return label;
}

QString PlainTextDelegate::displayText(const QVariant &value, const QLocale &locale) const
{
    return core::visibleText(QStyledItemDelegate::displayText(value, locale));
}

bool PlainTextDelegate::helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option, const QModelIndex &index)
{
    if (showPlainToolTip(event, view, index))
        return true;
    return QStyledItemDelegate::helpEvent(event, view, option, index);
}

bool showPlainToolTip(QHelpEvent *event, QAbstractItemView *view, const QModelIndex &index)
{
    if (!event || !view || event->type() != QEvent::ToolTip || !index.isValid())
        return false;
    const QVariant tip = index.data(Qt::ToolTipRole);
    if (!tip.canConvert<QString>() || tip.toString().isEmpty()) {
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    QToolTip::showText(event->globalPos(), plainToolTip(tip.toString()), view->viewport(), view->visualRect(index));
    return true;
}

void showPlainText(QAbstractItemView *view)
{
    view->setItemDelegate(new PlainTextDelegate(view));
}

} // namespace fieldscope::widgets
