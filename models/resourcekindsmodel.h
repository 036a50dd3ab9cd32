#pragma once
// ResourceKindsModel: the resource kinds a server offers (from discovery, CRDs included), as a
// tree of API groups, with object counts once known and a pinned "Favourites" group on top.
// Lives on the GUI thread. Counts and favourites change through insert/remove/dataChanged so
// the view keeps its expansion and selection; only a new discovery result resets the model.
#include <QAbstractItemModel>
#include <QStringList>

#include <vector>

namespace fieldscope::models {

struct ResourceKind {
    QString group; // "" for the core group
    QString version;
    QString resource; // plural, as in URLs
    QString kind;
    bool namespaced = false;
    QString qualifiedName() const { return group.isEmpty() ? resource : resource + u'.' + group; }
};

class ResourceKindsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { KindColumn, CountColumn, ColumnCount };
    enum Role {
        QualifiedNameRole = Qt::UserRole + 200, // "deployments.apps"; empty on group rows
        IsGroupRole,
        FavouriteRole,
        NamespacedRole,
        CountRole // qint64, -1 = unknown
    };

    explicit ResourceKindsModel(QObject *parent = nullptr);

    void setKinds(std::vector<ResourceKind> kinds);
    const std::vector<ResourceKind> &kinds() const { return m_kinds; }
    const ResourceKind *kind(const QString &qualifiedName) const;
    void setCount(const QString &qualifiedName, qint64 count);
    qint64 count(const QString &qualifiedName) const;

    void setFavourites(const QStringList &qualifiedNames);
    QStringList favourites() const;
    void setFavourite(const QString &q, bool on); // q: the qualified name
    bool isFavourite(const QString &qualifiedName) const;

    // The kind's row under its API group (not the favourites copy); invalid when unknown.
    QModelIndex indexOf(const QString &qualifiedName) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // Group 0 is Favourites; its position in m_order is 0 when it has members, absent otherwise.
    struct Group {
        QString title;
        std::vector<int> members; // indices into m_kinds, sorted by kind name
    };
    int kindIndex(const QString &qualifiedName) const;
    int displayRow(int groupId) const;
    void emitKindChanged(int kindIdx, int column);

    std::vector<ResourceKind> m_kinds;
    std::vector<qint64> m_counts;
    std::vector<bool> m_favourite;
    std::vector<int> m_groupOf; // kind -> group id
    std::vector<Group> m_groups;
    std::vector<int> m_order;        // display row -> group id
    QStringList m_pendingFavourites; // favourites named before discovery knew them
};

} // namespace fieldscope::models
