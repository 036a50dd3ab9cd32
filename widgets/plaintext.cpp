#include "widgets/plaintext.h"

#include "core/base/visibletext.h"
#include "models/plaintooltip.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
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
    return models::plainToolTip(untrusted);
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

QString windowTitleText(const QString &untrusted)
{
    return core::visibleText(untrusted);
}

void setPlainLabelText(QInputDialog *dialog, const QString &untrusted)
{
    // The dialog makes its label on the first setLabelText: made plain before it holds the text,
    // so the text is never parsed as HTML (an <img> would be loaded).
    if (!dialog->findChild<QLabel *>())
        dialog->setLabelText(QString());
    for (QLabel *l : dialog->findChildren<QLabel *>())
        l->setTextFormat(Qt::PlainText);
    // The label's buddy is the input: '&' would be a mnemonic even in plain text.
    dialog->setLabelText(core::visibleText(untrusted, true).replace(u'&', QStringLiteral("&&")));
}

void setPlainText(QMessageBox *box, const QString &untrusted)
{
    box->setTextFormat(Qt::PlainText);
    box->setText(core::visibleText(untrusted, true));
}

QString PlainTextDelegate::displayText(const QVariant &value, const QLocale &locale) const
{
    return core::visibleText(QStyledItemDelegate::displayText(value, locale));
}

bool PlainTextDelegate::helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
                                  const QModelIndex &index)
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
