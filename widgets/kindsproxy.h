#pragma once
// KindsProxy: what the resource kinds tree shows on top of ResourceKindsModel. It filters by the
// search text (case-insensitive, on the kind column: a kind's name or an API group's name) and
// keeps the model's order (Favourites pinned first, then the groups, each group's kinds by name):
// it never sorts. It adds the view's icons and the full name of an API group as a tooltip, for
// names too long for the column. Lives on the GUI thread (icons need the application palette).
#include <QSortFilterProxyModel>

namespace fieldscope::widgets {

class KindsProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit KindsProxy(QObject *parent = nullptr);

    // A kind whose name holds `text` is shown with its group; a group whose name holds it is
    // shown with all its kinds. Empty: everything.
    void setSearchText(const QString &text);

    QVariant data(const QModelIndex &index, int role) const override;
};

} // namespace fieldscope::widgets
