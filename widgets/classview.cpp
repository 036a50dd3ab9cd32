#include "widgets/classview.h"

#include "models/classmodel.h"
#include "widgets/plaintable.h"
#include "widgets/plaintext.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace fieldscope::widgets {

namespace {
// The objects offered for the race (newest first); older ones are not offered.
constexpr int kMaxRaceObjects = 200;
// The combo box shows this much of an object's name; the tooltip the rest.
constexpr int kMaxObjectChars = 120;
} // namespace

ClassView::ClassView(QWidget *parent) : QWidget(parent), m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("classView"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    m_banner = plainLabel(new QLabel(tr("No class is running. Class → Start Class from a Roster… makes one."), this));
    m_banner->setObjectName(QStringLiteral("classBanner"));
    m_banner->setWordWrap(true);
    m_banner->setMargin(6);
    m_summary = plainLabel(new QLabel(this));
    m_summary->setObjectName(QStringLiteral("classSummary"));
    layout->addWidget(m_banner);
    layout->addWidget(m_summary);

    m_students = plainTable(this, "classStudents");
    m_students->setSortingEnabled(true);
    m_proxy->setSortRole(models::ClassStudentsModel::SortRole);
    m_students->setModel(m_proxy);

    auto *racePane = new QWidget(this);
    auto *raceLayout = new QVBoxLayout(racePane);
    raceLayout->setContentsMargins(0, 0, 0, 0);
    auto *raceBar = new QHBoxLayout;
    auto *raceTitle = new QLabel(tr("Live race on"), racePane);
    QFont bold = raceTitle->font();
    bold.setBold(true);
    raceTitle->setFont(bold);
    m_raceObject = new QComboBox(racePane);
    m_raceObject->setObjectName(QStringLiteral("classRaceObject"));
    m_raceObject->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_raceObject->setMinimumContentsLength(24);
    m_raceObject->setToolTip(tr("The object whose writes the race shows; it follows the object written last until "
                                "you pick one"));
    m_raceCounts = plainLabel(new QLabel(racePane));
    m_raceCounts->setObjectName(QStringLiteral("classRaceCounts"));
    raceBar->addWidget(raceTitle);
    raceBar->addWidget(m_raceObject, 1);
    raceBar->addWidget(m_raceCounts);
    raceLayout->addLayout(raceBar);
    m_race = plainTable(racePane, "classRace");
    raceLayout->addWidget(m_race);

    m_split = new QSplitter(Qt::Vertical, this);
    m_split->addWidget(m_students);
    m_split->addWidget(racePane);
    m_split->setChildrenCollapsible(false);
    layout->addWidget(m_split, 1);

    connect(m_raceObject, &QComboBox::activated, this, [this](int i) {
        m_picked = i > 0; // the first entry is "the object written last"
        const QString object = i > 0 ? m_raceObject->itemData(i).toString() : m_raceObject->itemData(1).toString();
        Q_EMIT raceObjectChosen(object);
    });
    m_raceObject->addItem(tr("(the object written last)"));
    showStopped({});
}

void ClassView::setModels(models::ClassStudentsModel *students, models::ClassRaceModel *race)
{
    m_studentsModel = students;
    m_raceModel = race;
    m_proxy->setSourceModel(students);
    m_race->setModel(race);
    applyColumnWidths(m_presenter ? 1.6 : 1.0);
    // The newest writes stay in sight unless the person scrolled up to read.
    connect(race, &QAbstractItemModel::rowsAboutToBeInserted, this, [this] {
        QScrollBar *bar = m_race->verticalScrollBar();
        m_followRace = bar->value() >= bar->maximum() - 2;
    });
    connect(race, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_followRace)
            QMetaObject::invokeMethod(m_race, &QTableView::scrollToBottom, Qt::QueuedConnection);
    });
    auto counts = [this] { updateCounts(); };
    for (QAbstractItemModel *m :
         {static_cast<QAbstractItemModel *>(students), static_cast<QAbstractItemModel *>(race)}) {
        connect(m, &QAbstractItemModel::dataChanged, this, counts);
        connect(m, &QAbstractItemModel::rowsInserted, this, counts);
        connect(m, &QAbstractItemModel::modelReset, this, counts);
    }
    updateCounts();
}

void ClassView::showRunning(int students, const QDateTime &expires, const QString &listen)
{
    const QString until = QLocale().toString(expires.toLocalTime(), QLocale::ShortFormat);
    if (listen.isEmpty()) {
        m_banner->setText(tr("Class running: %n students until %1. Students reach the API server on this machine only.",
                             nullptr, students)
                              .arg(until));
        m_banner->setStyleSheet(QStringLiteral("QLabel { background: #e6f2e6; color: #1c3d1c; }"));
    } else {
        // An address beyond this machine: the teacher must see, for as long as it lasts, that the
        // sandbox's API server answers there.
        m_banner->setText(tr("Class running: %n students until %1. Students reach the API server at %2", nullptr,
                             students)
                              .arg(until, visibleText(listen)));
        m_banner->setStyleSheet(QStringLiteral("QLabel { background: #fff1c2; color: #4a3500; font-weight: bold; }"));
    }
}

void ClassView::showStopped(const QString &why)
{
    m_banner->setText(why.isEmpty() ? tr("No class is running. Class → Start Class from a Roster… makes one.") : why);
    m_banner->setStyleSheet(QString());
}

void ClassView::showProblem(const QString &message)
{
    m_summary->setText(tr("Cannot read the audit log: %1").arg(visibleText(message)));
}

void ClassView::setRaceObjects(const QStringList &objects)
{
    const QString current = m_raceObject->currentIndex() > 0 ? m_raceObject->currentData().toString() : QString();
    m_raceObject->blockSignals(true);
    while (m_raceObject->count() > 1)
        m_raceObject->removeItem(1);
    for (const QString &o : objects.mid(0, kMaxRaceObjects)) {
        QString shown = visibleText(o);
        if (shown.size() > kMaxObjectChars)
            shown = shown.left(kMaxObjectChars) + QStringLiteral("…");
        m_raceObject->addItem(shown, o);
        m_raceObject->setItemData(m_raceObject->count() - 1, plainToolTip(o), Qt::ToolTipRole);
    }
    // The first entry names the object it follows, so the room can read which one it is.
    m_raceObject->setItemText(0, objects.isEmpty() ? tr("(the object written last)")
                                                   : tr("%1 (written last)").arg(m_raceObject->itemText(1)));
    const int keep = current.isEmpty() ? -1 : m_raceObject->findData(current);
    m_raceObject->setCurrentIndex(keep > 0 ? keep : 0);
    m_raceObject->blockSignals(false);
    if (m_picked && keep <= 0)
        m_picked = false; // the picked object left the list
    if (!m_picked && !objects.isEmpty() && (!m_raceModel || m_raceModel->object() != objects.front()))
        Q_EMIT raceObjectChosen(objects.front());
}

void ClassView::setPresenter(bool on)
{
    if (on == m_presenter)
        return;
    m_presenter = on;
    applyFonts();
}

void ClassView::applyFonts()
{
    const double scale = m_presenter ? 1.6 : 1.0;
    QFont f = QFont();
    f.setPointSizeF(f.pointSizeF() * scale);
    for (QWidget *w : {static_cast<QWidget *>(m_students), static_cast<QWidget *>(m_race),
                       static_cast<QWidget *>(m_banner), static_cast<QWidget *>(m_summary),
                       static_cast<QWidget *>(m_raceCounts), static_cast<QWidget *>(m_raceObject)}) {
        w->setFont(f);
        if (auto *t = qobject_cast<QTableView *>(w))
            t->horizontalHeader()->setFont(f);
    }
    for (QTableView *t : {m_students, m_race})
        t->verticalHeader()->setDefaultSectionSize(QFontMetrics(f).height() + 8);
    applyColumnWidths(scale);
    // The race is what the room watches: it gets the room (the students' table and the field
    // managers come back when presenter mode ends).
    m_students->setVisible(!m_presenter);
    m_race->setColumnHidden(models::ClassRaceModel::ManagerColumn, m_presenter);
}

void ClassView::applyColumnWidths(double scale)
{
    auto width = [scale](int px) { return int(px * scale); };
    using S = models::ClassStudentsModel;
    using R = models::ClassRaceModel;
    for (int c : {S::RequestsColumn, S::WritesColumn, S::RefusedColumn})
        m_students->setColumnWidth(c, width(80));
    m_students->setColumnWidth(S::NameColumn, width(160));
    m_students->setColumnWidth(S::LastObjectColumn, width(260));
    m_race->setColumnWidth(R::TimeColumn, width(100));
    m_race->setColumnWidth(R::StudentColumn, width(120));
    m_race->setColumnWidth(R::OutcomeColumn, width(100));
    m_race->setColumnWidth(R::ResourceVersionColumn, width(70));
    m_race->setColumnWidth(R::ManagerColumn, width(110));
}

void ClassView::updateCounts()
{
    if (m_studentsModel)
        m_summary->setText(tr("Requests from students: %1 · refused writes: %2")
                               .arg(m_studentsModel->totalRequests())
                               .arg(m_studentsModel->totalRefused()));
    if (m_raceModel)
        m_raceCounts->setText(m_raceModel->object().isEmpty()
                                  ? QString()
                                  : (m_raceModel->versions() == 1 ? tr("1 version")
                                                                  : tr("%1 versions").arg(m_raceModel->versions()))
                                        + QStringLiteral(", ") + tr("%1 refused").arg(m_raceModel->refusals()));
}

} // namespace fieldscope::widgets
