#include "widgets/driftview.h"

#include "core/base/json.h"
#include "models/driftmodel.h"
#include "models/roles.h"
#include "widgets/icons.h"
#include "widgets/plaintable.h"
#include "widgets/plaintext.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace fieldscope::widgets {
namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

// A value in the question: short enough to read, JSON so that "2" and 2 differ.
QString valueText(const core::Json &v)
{
    std::string text = core::toJsonText(v);
    if (text.size() > 200)
        text = core::jsonPreview(v, 200);
    return qs(text);
}

QString objectText(const core::DriftObjectRef &o)
{
    return qs(o.resource + ' ' + (o.namespace_.empty() ? std::string() : o.namespace_ + '/') + o.name);
}

QString writerText(const core::DriftNow &now)
{
    if (now.manager.empty())
        return DriftView::tr("an unknown writer");
    QString w = qs(now.manager);
    if (now.operation)
        w += QStringLiteral(" (%1%2)").arg(QString::fromLatin1(core::operationName(*now.operation)),
                                           now.subresource.empty() ? QString() : u'/' + qs(now.subresource));
    if (!now.user.empty())
        w += DriftView::tr(", person %1").arg(qs(now.user));
    return w;
}

} // namespace

DriftView::DriftView(QWidget *parent) : QWidget(parent), m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("driftView"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    auto *bar = new QHBoxLayout;
    m_title = plainLabel(new QLabel(tr("Drift"), this)); // a namespace name is the cluster's
    m_title->setObjectName(QStringLiteral("driftTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_status = plainLabel(new QLabel(this));
    m_status->setObjectName(QStringLiteral("driftStatus"));
    m_giveBack = new QPushButton(tr("Give back…"), this);
    m_giveBack->setObjectName(QStringLiteral("giveBackButton"));
    m_giveBack->setEnabled(false);
    m_refresh = new QPushButton(icon(Icon::Refresh), tr("Refresh"), this);
    m_refresh->setObjectName(QStringLiteral("driftRefreshButton"));
    m_refresh->setToolTip(tr("Compute the drift of these objects again from their recorded history"));
    bar->addWidget(m_title);
    bar->addSpacing(8);
    bar->addWidget(m_status, 1);
    bar->addWidget(m_giveBack);
    bar->addWidget(m_refresh);
    layout->addLayout(bar);

    m_table = plainTable(this, "driftTable");
    m_table->setSortingEnabled(true);
    m_table->setToolTip(tr("Click a field (or press Enter) to see the object's History at the change."));
    m_proxy->setSortRole(models::SortRole);
    m_proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->sortByColumn(models::DriftModel::ObjectColumn, Qt::AscendingOrder);
    layout->addWidget(m_table, 1);

    connect(m_refresh, &QPushButton::clicked, this, &DriftView::refreshRequested);
    connect(m_giveBack, &QPushButton::clicked, this, &DriftView::requestGiveBack);
    connect(m_table, &QTableView::clicked, this, &DriftView::activate);
    connect(m_table, &QTableView::activated, this, &DriftView::activate);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DriftView::updateGiveBack);
    setModel(nullptr);
}

void DriftView::setModel(models::DriftModel *model)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    m_proxy->setSourceModel(model);
    m_refresh->setEnabled(model != nullptr);
    if (!model) {
        m_status->setText(tr("Drift is computed for a live cluster."));
        updateGiveBack();
        return;
    }
    // Rows a run replaces keep the current row; one that goes (or changes) is re-read.
    connect(model, &QAbstractItemModel::modelReset, this, &DriftView::updateGiveBack);
    connect(model, &QAbstractItemModel::layoutChanged, this, &DriftView::updateGiveBack);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &DriftView::updateGiveBack);
    connect(model, &QAbstractItemModel::dataChanged, this, &DriftView::updateGiveBack);
    const int widths[] = {140, 140, 90, 100, 100, 140, 80, 135}; // Source takes the rest
    for (int c = 0; c < int(std::size(widths)); ++c)
        m_table->horizontalHeader()->resizeSection(c, widths[c]);
    updateGiveBack();
}

void DriftView::setScope(const QString &scope)
{
    m_title->setText(tr("Drift of %1").arg(visibleText(scope)));
}

void DriftView::showComputing(int objects)
{
    m_computing = true;
    m_problems.clear();
    m_status->setToolTip({});
    m_status->setText(
        objects == 1
            ? tr("Computing the drift of 1 object from its recorded history…")
            : tr("Computing the drift of %1 objects from their recorded history…").arg(QLocale().toString(objects)));
}

void DriftView::showFinished(const QStringList &problems)
{
    m_computing = false;
    m_problems = problems;
    updateCounts();
}

void DriftView::showMessage(const QString &message)
{
    m_status->setText(visibleText(message));
    m_status->setToolTip(plainToolTip(message));
}

QString DriftView::statusText() const
{
    return m_status->text();
}

void DriftView::updateCounts()
{
    if (!m_model)
        return;
    const int fields = m_model->rowCount();
    const QString objects = m_model->objectCount() == 1
                              ? tr("1 object")
                              : tr("%1 objects").arg(QLocale().toString(m_model->objectCount()));
    QString text = fields == 0
                     ? tr("No drift in %1: every field an applier set still has its value and its owner.").arg(objects)
                 : fields == 1
                     ? tr("1 drifted field in %1.").arg(objects)
                     : tr("%1 drifted fields in %2 of %3.")
                           .arg(QLocale().toString(fields), QLocale().toString(m_model->driftedObjectCount()), objects);
    const QStringList limits = m_problems + m_model->notes();
    const int notes = int(m_problems.size()) + m_model->noteCount();
    if (notes > 0)
        text += u' ' + (notes == 1 ? tr("1 note (tooltip).") : tr("%1 notes (tooltip).").arg(notes));
    m_status->setText(text);
    m_status->setToolTip(plainToolTip(limits.join(u'\n')));
}

const core::DriftFinding *DriftView::currentFinding() const
{
    const QModelIndex current = m_table->currentIndex();
    return m_model && current.isValid() ? m_model->findingAt(m_proxy->mapToSource(current).row()) : nullptr;
}

QString DriftView::giveBackRefusal(const core::DriftFinding &f)
{
    const QString applier = visibleText(qs(f.appliedBy));
    if (!f.appliedKnown)
        return tr("%1's apply was not recorded (source: managedFields), so the value it set is not known. "
                  "Re-apply it as %1, or edit the object (Ctrl+E).")
            .arg(applier);
    if (!f.appliedPresent)
        return tr("%1's apply did not set this field: giving it back would mean removing the field, which is "
                  "not done from here. Edit the object (Ctrl+E) to remove it.")
            .arg(applier);
    if (!f.now.present)
        return tr("The field is not in the object now, and a write that adds it only if it is still absent "
                  "cannot be sent as a JSON Patch test. Re-apply as %1, or edit the object (Ctrl+E).")
            .arg(applier);
    if (core::jsonEqual(f.appliedValue, f.now.value))
        return tr("The field has the value %1 applied again; %1 owns it again at its next apply.").arg(applier);
    return {};
}

void DriftView::updateGiveBack()
{
    const core::DriftFinding *f = currentFinding();
    if (!f) {
        m_giveBack->setText(tr("Give back…"));
        m_giveBack->setEnabled(false);
        m_giveBack->setToolTip(tr("Select a drifted field to give it back to the manager that applied it."));
        return;
    }
    m_giveBack->setText(actionText(tr("Give back to %1…").arg(qs(f->appliedBy))));
    const QString refusal = giveBackRefusal(*f);
    m_giveBack->setEnabled(refusal.isEmpty());
    m_giveBack->setToolTip(
        plainToolTip(refusal.isEmpty() ? tr("Set %1 back to the value %2 applied, only if it is still the value shown")
                                             .arg(qs(f->path.toString()), qs(f->appliedBy))
                                       : refusal));
}

void DriftView::activate(const QModelIndex &proxyIndex)
{
    if (!m_model || !proxyIndex.isValid())
        return;
    if (const core::DriftFinding *f = m_model->findingAt(m_proxy->mapToSource(proxyIndex).row()))
        Q_EMIT findingActivated(*f);
}

void DriftView::requestGiveBack()
{
    const core::DriftFinding *current = currentFinding();
    if (!current || !giveBackRefusal(*current).isEmpty())
        return;
    const core::DriftFinding f = *current; // the row may change while the question is open
    auto *box = new QMessageBox(QMessageBox::Question,
                                windowTitleText(tr("Give %1 back to %2?").arg(qs(f.path.toString()), qs(f.appliedBy))),
                                QString(), QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("giveBackBox"));
    setPlainText(box,
                 tr("Set %1 of %2 back to %3, the value %4 applied, only if it is still %5 (set by %6) when the "
                    "server applies the write.\n\nThe write is a JSON Patch (test, then replace) sent as your field "
                    "manager (Settings); %4 owns the field again at its next apply. If anyone changed the field "
                    "meanwhile, the server refuses it and nothing is written.")
                     .arg(qs(f.path.toString()), objectText(f.object), valueText(f.appliedValue), qs(f.appliedBy),
                          valueText(f.now.value), writerText(f.now)));
    box->addButton(actionText(tr("Give back to %1").arg(qs(f.appliedBy))), QMessageBox::AcceptRole);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, f] {
        if (box->buttonRole(box->clickedButton()) == QMessageBox::AcceptRole)
            Q_EMIT giveBackConfirmed(f);
    });
    box->open();
}

} // namespace fieldscope::widgets
