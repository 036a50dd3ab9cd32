#pragma once
// Strings from servers, kubeconfigs and files are plain text in every widget (README.md, Security):
// a field manager, label value, event message or context name of `<img src="/dev/zero"><b>x</b>`
// shows those characters, loads nothing and changes no layout; control and bidi characters show
// as \uXXXX (core::visibleText).
//
// Where Qt guesses: QLabel, QMessageBox and every tooltip render rich text when
// Qt::mightBeRichText() says so; a QAction, QTabBar or QPushButton text takes `&` as a mnemonic.
// So: labels that show such strings are Qt::PlainText (plainLabel), tooltips go through
// plainToolTip, rich-text views escape with richEscaped, menu, tab, button and checkbox texts
// with actionText, titles with windowTitleText, QInputDialog and QMessageBox texts through
// setPlainLabelText and setPlainText. Models (which cannot include widgets) return tooltips
// shown outside a delegate (header sections) through models::plainToolTip.
#include <QString>
#include <QStyledItemDelegate>

class QAbstractItemView;
class QInputDialog;
class QLabel;
class QMessageBox;

namespace fieldscope::widgets {

// Control and bidi characters as visible escapes (keepNewlines: multi-line messages).
QString visibleText(const QString &untrusted, bool keepNewlines = false);
// For a rich-text context (QTextBrowser, an HTML label): visible and HTML-escaped.
QString richEscaped(const QString &untrusted);
// A tooltip that shows exactly these characters: rich-looking text is escaped and wrapped so
// Qt renders it literally; anything else stays plain.
QString plainToolTip(const QString &untrusted);
// For QAction, QTabBar and button texts: visible, and `&` doubled so it is not a mnemonic.
QString actionText(const QString &untrusted);
// Makes `label` plain text and returns it (for chaining at construction).
QLabel *plainLabel(QLabel *label);
// For window and dialog titles: visible (a title takes no HTML and no mnemonic).
QString windowTitleText(const QString &untrusted);
// A QInputDialog's question (plain, '&' no mnemonic: the label has a buddy) and a QMessageBox's
// text, shown as plain text (they guess otherwise).
void setPlainLabelText(QInputDialog *dialog, const QString &untrusted);
void setPlainText(QMessageBox *box, const QString &untrusted);

// The default delegate for views of server data: display text made visible, tooltips plain.
class PlainTextDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QString displayText(const QVariant &value, const QLocale &locale) const override;
    bool helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
                   const QModelIndex &index) override;
};

// Installs a PlainTextDelegate as `view`'s item delegate.
void showPlainText(QAbstractItemView *view);
// The tooltip part of PlainTextDelegate, for delegates with their own painting.
bool showPlainToolTip(QHelpEvent *event, QAbstractItemView *view, const QModelIndex &index);

} // namespace fieldscope::widgets
