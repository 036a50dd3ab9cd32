#pragma once
// The keyboard shortcuts help (F1). The settings dialog (Ctrl+,) is widgets/settingsdialog.h.
#include <QDialog>

class QAction;

namespace fieldscope::widgets {

class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    // Lists WINDOWACTIONS that have a key (as their menus name them), then keysInViews().
    explicit ShortcutsDialog(const QList<QAction *> &windowActions, QWidget *parent = nullptr);
    // (keys, what) in the order shown.
    static QList<QPair<QString, QString>> shortcuts(const QList<QAction *> &windowActions);
    static QList<QPair<QString, QString>> keysInViews();
};

} // namespace fieldscope::widgets
