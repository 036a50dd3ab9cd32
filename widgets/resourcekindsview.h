#pragma once
// ResourceKindsView: the resource kinds of one cluster grouped by API group, with counts and
// pinned favourites (context menu or F toggles). Owns its actions. Lives on the GUI thread.
#include <QWidget>

class QTreeView;
class QLineEdit;

namespace fieldscope::models {
class ResourceKindsModel;
}

namespace fieldscope::widgets {

class KindsProxy;

class ResourceKindsView : public QWidget
{
    Q_OBJECT
public:
    explicit ResourceKindsView(QWidget *parent = nullptr);

    void setModel(models::ResourceKindsModel *model);
    // Marks the kind as current without emitting kindChosen.
    void setCurrentKind(const QString &qualifiedName);
    QString currentKind() const;
    QTreeView *tree() const { return m_tree; }

Q_SIGNALS:
    void kindChosen(const QString &qualifiedName);
    void favouritesChanged(const QStringList &qualifiedNames);

private:
    void toggleFavourite(const QModelIndex &index);
    void showMenu(const QPoint &pos);

    QLineEdit *m_search;
    QTreeView *m_tree;
    KindsProxy *m_proxy; // a few hundred rows: the stock proxy is plenty here
    models::ResourceKindsModel *m_model = nullptr;
    bool m_quiet = false;
};

} // namespace fieldscope::widgets
