#include "widgets/lessonpanel.h"

#include "widgets/plaintext.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace fieldscope::widgets {
namespace {

QString fromStd(const std::string &s)
{
    return QString::fromStdString(s);
}

// Lesson files wrap their narrative at 100 columns; the panel has its own width. Lines of a
// paragraph are joined, blank lines stay paragraph breaks.
QString reflow(const QString &text)
{
    QStringList paragraphs;
    for (const QString &p : text.split(QStringLiteral("\n\n"), Qt::SkipEmptyParts))
        paragraphs << p.split(QLatin1Char('\n'), Qt::SkipEmptyParts).join(QLatin1Char(' ')).simplified();
    return paragraphs.join(QStringLiteral("\n\n"));
}

// "/api/v1/namespaces/ns/configmaps/demo" -> "configmaps/demo": the namespace is the lesson's,
// the group version the same for every row; the full path is the cell's tooltip.
QString shortPath(const std::string &path)
{
    QString p = fromStd(path);
    const qsizetype ns = p.indexOf(QStringLiteral("/namespaces/"));
    if (ns < 0)
        return p;
    const qsizetype after = p.indexOf(QLatin1Char('/'), ns + 12);
    return after < 0 ? p : p.mid(after + 1);
}

QString count(int n, const QString &one, const QString &many)
{
    return (n == 1 ? one : many).arg(n);
}

QString viewLabel(core::LessonView v)
{
    switch (v) {
    case core::LessonView::Table: return LessonPanel::tr("table");
    case core::LessonView::Yaml: return LessonPanel::tr("YAML");
    case core::LessonView::Ownership: return LessonPanel::tr("Ownership");
    case core::LessonView::History: return LessonPanel::tr("History");
    case core::LessonView::Editor: return LessonPanel::tr("editor");
    }
    return {};
}

} // namespace

LessonPanel::LessonPanel(QWidget *parent)
    : QWidget(parent)
    , m_title(plainLabel(new QLabel(this)))
    , m_stepTitle(plainLabel(new QLabel(this)))
    , m_where(plainLabel(new QLabel(this)))
    , m_narrative(new QTextBrowser(this))
    , m_requests(new QTableWidget(0, 5, this))
    , m_outcome(plainLabel(new QLabel(this)))
    , m_status(plainLabel(new QLabel(this)))
    , m_back(new QPushButton(tr("Back"), this))
    , m_next(new QPushButton(tr("Next"), this))
    , m_reset(new QPushButton(tr("Reset"), this))
    , m_again(new QPushButton(tr("Run again"), this))
    , m_presenterButton(new QPushButton(tr("Presenter"), this))
{
    setObjectName(QStringLiteral("lessonPanel"));
    m_baseFont = font();
    m_basePalette = palette();
    QFont big = m_title->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setWordWrap(true);
    QFont bold = m_stepTitle->font();
    bold.setBold(true);
    m_stepTitle->setFont(bold);
    m_stepTitle->setWordWrap(true);
    m_where->setWordWrap(true);
    m_outcome->setWordWrap(true);
    m_status->setWordWrap(true);
    m_narrative->setOpenLinks(false);
    m_requests->setHorizontalHeaderLabels({tr("ms"), tr("client"), tr("request"), tr("answer"), tr("message")});
    m_requests->verticalHeader()->hide();
    m_requests->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_requests->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_requests->horizontalHeader()->setStretchLastSection(true);
    m_requests->setWordWrap(false);
    showPlainText(m_requests);
    m_presenterButton->setCheckable(true);
    m_next->setDefault(true);
    m_back->setToolTip(tr("The previous step (Backspace in presenter mode)"));
    m_next->setToolTip(tr("Run the next step (Space in presenter mode)"));
    m_reset->setToolTip(tr("Delete what the lesson wrote and start again from the introduction"));
    m_again->setToolTip(tr("Reset and run every step up to this one again: races may end differently"));

    auto *buttons = new QHBoxLayout;
    for (QPushButton *b : {m_back, m_next, m_reset, m_again})
        buttons->addWidget(b);
    buttons->addStretch();
    buttons->addWidget(m_presenterButton);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_where);
    layout->addWidget(m_stepTitle);
    layout->addWidget(m_narrative, 3);
    layout->addLayout(buttons);
    auto *saw = plainLabel(new QLabel(tr("What the API server saw"), this));
    saw->setFont(bold);
    layout->addWidget(saw);
    layout->addWidget(m_requests, 2);
    layout->addWidget(m_outcome);
    layout->addWidget(m_status);

    connect(m_back, &QPushButton::clicked, this, &LessonPanel::backRequested);
    connect(m_next, &QPushButton::clicked, this, &LessonPanel::nextRequested);
    connect(m_reset, &QPushButton::clicked, this, &LessonPanel::resetRequested);
    connect(m_again, &QPushButton::clicked, this, &LessonPanel::runAgainRequested);
    connect(m_presenterButton, &QPushButton::toggled, this, [this](bool on) {
        setPresenter(on);
        Q_EMIT presenterToggled(on);
    });
    updateButtons();
}

void LessonPanel::setLesson(const core::Lesson &lesson, const QString &where)
{
    m_lesson = lesson;
    m_index = -1;
    m_title->setText(visibleText(fromStd(lesson.title))); // a lesson file's words
    m_where->setText(visibleText(where));
    showStep(-1, nullptr);
}

void LessonPanel::showStep(int index, const core::LessonStepReport *report)
{
    m_index = index;
    m_requests->setRowCount(0);
    m_outcome->clear();
    m_status->clear();
    if (index < 0 || index >= int(m_lesson.steps.size())) {
        m_stepTitle->setText(count(int(m_lesson.steps.size()), tr("Introduction: %1 step"),
                                   tr("Introduction: %1 steps")));
        m_narrative->setPlainText(visibleText(reflow(fromStd(m_lesson.summary)), true) + QStringLiteral("\n\n")
                                  + tr("Press Next to run the first step against the cluster."));
        updateButtons();
        return;
    }
    const core::LessonStep &step = m_lesson.steps[std::size_t(index)];
    m_stepTitle->setText(
        tr("Step %1 of %2: %3").arg(index + 1).arg(m_lesson.steps.size()).arg(visibleText(fromStd(step.title))));
    QString narrative = reflow(fromStd(step.narrative).trimmed());
    narrative += QStringLiteral("\n\n") + tr("Look at: the %1 view").arg(viewLabel(step.view));
    if (!step.highlight.empty())
        narrative += tr(", %1").arg(fromStd(step.highlight));
    m_narrative->setPlainText(visibleText(narrative, true));
    if (report)
        fillRequests(*report);
    updateButtons();
}

void LessonPanel::fillRequests(const core::LessonStepReport &report)
{
    // A class step's clients are students: named as the class's roster and audit log name them.
    const auto who = [&](int client) {
        return report.students.empty() ? tr("client %1").arg(client) : visibleText(fromStd(report.clientName(client)));
    };
    m_requests->setRowCount(int(report.calls.size()));
    int row = 0;
    for (const core::LessonCall &c : report.calls) {
        QString answer = c.status ? QString::number(c.status) : tr("no answer");
        if (!c.reason.empty())
            answer += QLatin1Char(' ') + fromStd(c.reason);
        const QStringList cells{QString::number(c.answeredMs),
                                c.student.empty() ? QString::number(c.client) : visibleText(fromStd(c.student)),
                                fromStd(c.method) + QLatin1Char(' ') + shortPath(c.path), answer,
                                c.ok() ? QString() : fromStd(c.message)};
        for (int col = 0; col < cells.size(); ++col) {
            auto *item = new QTableWidgetItem(cells[col]);
            item->setToolTip(col == 2 ? fromStd(c.method + " " + c.path) : cells[col]);
            if (!c.ok() && c.isWrite)
                item->setForeground(m_presenter ? QColor(255, 140, 120) : QColor(176, 32, 32));
            m_requests->setItem(row, col, item);
        }
        ++row;
    }
    m_requests->resizeColumnsToContents();
    QStringList outcome;
    QString line = count(report.succeeded, tr("%1 write succeeded"), tr("%1 writes succeeded"));
    for (const auto &[reason, n] : report.errors)
        line += tr(", %1 × %2").arg(fromStd(reason)).arg(n);
    const bool wrote = std::any_of(report.calls.begin(), report.calls.end(),
                                   [](const core::LessonCall &c) { return c.isWrite; });
    if (report.winner && wrote)
        line += tr("; winner: %1").arg(who(*report.winner));
    else if (report.last && wrote)
        line += tr("; the object shows %1's write").arg(who(*report.last));
    outcome << line;
    for (const auto &[pointer, owners] : report.owners) {
        QStringList names;
        for (const core::LessonOwner &o : owners)
            names << fromStd(o.manager) + QStringLiteral(" (") + fromStd(o.operation)
                         + (o.subresource.empty() ? QString() : QLatin1Char('/') + fromStd(o.subresource))
                         + QLatin1Char(')');
        outcome << tr("%1 is owned by %2")
                       .arg(fromStd(pointer), names.isEmpty() ? tr("nobody") : names.join(QStringLiteral(", ")));
    }
    outcome << count(int(report.events.size()), tr("The watch delivered %1 event for the object."),
                     tr("The watch delivered %1 events for the object."));
    m_outcome->setText(visibleText(outcome.join(QLatin1Char('\n')), true));
    if (report.passed()) {
        m_status->setText(tr("✔ As the lesson says."));
    } else {
        QStringList why;
        for (const std::string &m : report.mismatches)
            why << fromStd(m);
        m_status->setText(visibleText(tr("✘ Not as the lesson says:\n%1").arg(why.join(QLatin1Char('\n'))), true));
    }
}

QString LessonPanel::outcomeText() const
{
    return m_outcome->text() + QLatin1Char('\n') + m_status->text();
}

void LessonPanel::setBusy(const QString &what)
{
    m_busy = !what.isEmpty();
    if (m_busy)
        m_status->setText(visibleText(what));
    updateButtons();
}

void LessonPanel::showStudentPrompt(const QString &heading, const QString &instruction, const QString &object)
{
    m_busy = true;
    m_status->setText(visibleText(heading) + QLatin1Char('\n') + visibleText(instruction.trimmed(), true)
                      + QLatin1Char('\n') + visibleText(object));
    updateButtons();
}

QString LessonPanel::statusText() const
{
    return m_status->text();
}

void LessonPanel::setError(const QString &error)
{
    m_busy = false;
    m_status->setText(visibleText(error, true));
    updateButtons();
}

void LessonPanel::updateButtons()
{
    const int steps = int(m_lesson.steps.size());
    m_back->setEnabled(!m_busy && m_index >= 0);
    m_next->setEnabled(!m_busy && m_index + 1 < steps);
    m_next->setText(m_index < 0 ? tr("Start") : tr("Next"));
    m_reset->setEnabled(!m_busy);
    m_again->setEnabled(!m_busy && m_index >= 0);
}

void LessonPanel::setPresenter(bool on)
{
    if (m_presenter == on)
        return;
    m_presenter = on;
    m_presenterButton->setChecked(on);
    qDeleteAll(m_presenterKeys);
    m_presenterKeys.clear();
    if (on) {
        // The whole window listens: the presenter's hands are on a clicker or the space bar.
        for (auto [key, fn] : {std::pair{Qt::Key_Space, &LessonPanel::nextRequested},
                               std::pair{Qt::Key_Backspace, &LessonPanel::backRequested}}) {
            auto *s = new QShortcut(QKeySequence(key), window(), nullptr, nullptr, Qt::WindowShortcut);
            connect(s, &QShortcut::activated, this, [this, fn = fn] {
                if (!m_busy)
                    Q_EMIT(this->*fn)();
            });
            m_presenterKeys << s;
        }
    }
    applyPresenterLook();
}

void LessonPanel::applyPresenterLook()
{
    QFont f = m_baseFont;
    if (m_presenter)
        f.setPointSizeF(f.pointSizeF() * 1.6);
    setFont(f);
    m_requests->horizontalHeader()->setFont(f);
    QFont title = f;
    title.setPointSizeF(f.pointSizeF() * 1.3);
    title.setBold(true);
    m_title->setFont(title);
    QFont bold = f;
    bold.setBold(true);
    m_stepTitle->setFont(bold);
    if (!m_presenter) {
        setPalette(m_basePalette);
        setAutoFillBackground(false);
        return;
    }
    QPalette p = m_basePalette;
    for (auto role : {QPalette::Window, QPalette::Base, QPalette::AlternateBase, QPalette::Button})
        p.setColor(role, QColor(12, 12, 12));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(role, Qt::white);
    p.setColor(QPalette::Highlight, QColor(255, 214, 0));
    p.setColor(QPalette::HighlightedText, Qt::black);
    setPalette(p);
    setAutoFillBackground(true);
}

} // namespace fieldscope::widgets
