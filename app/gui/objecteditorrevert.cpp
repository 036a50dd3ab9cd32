// ObjectEditor's part in "Revert to this version" and "Undo this change" (the History tab): the
// buffer gets the live object with the recorded fields put back, and JSON Patch is chosen, whose
// `test` of every value it replaces refuses the write when someone changed one of those fields
// since the editor read the object (the three-way view then shows what changed). The plan is
// core::planRevert's (core/edit/revertplan.h); nothing is sent until the user writes.
#include "app/gui/objecteditor.h"
#include "core/base/boundary.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/edit/revertplan.h"
#include "core/yaml/yaml.h"

#include <QFutureWatcher>
#include <QStringList>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {
namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

// How the store shows a Secret's recorded hash (core/history/secretredaction.h): no value to write back.
bool hiddenValue(std::string_view s)
{
    return s.rfind("(hidden value ", 0) == 0 && !s.empty() && s.back() == ')';
}

struct Proposal {
    core::RevertPlan plan;
    QString yaml;
    // Undo only: the fields that change touched which someone changed again since. Undoing it
    // would throw their change away, so nothing is proposed.
    core::StaleCheck changedSince;
};

core::Result<Proposal> planFor(const widgets::RevertRequest &r, const core::Json &live, bool withoutStatus)
{
    auto target = core::parseJson(std::string_view(r.target.constData(), std::size_t(r.target.size())));
    if (!target)
        return target.error();
    std::optional<core::Json> before;
    if (r.changeOnly) {
        auto p = core::parseJson(std::string_view(r.predecessor.constData(), std::size_t(r.predecessor.size())));
        if (!p)
            return p.error();
        before = std::move(*p);
    }
    core::RevertOptions options;
    options.withoutStatus = withoutStatus;
    options.isHiddenValue = hiddenValue;
    auto plan = core::planRevert(*target, before ? &*before : nullptr, live, options);
    if (!plan)
        return plan.error();
    Proposal out;
    if (r.changeOnly)
        out.changedSince = core::staleSince(*plan, *target, live, options);
    out.yaml = q(core::jsonToYaml(plan->restored));
    out.plan = std::move(*plan);
    return out;
}

// What the banner above the buffer says about the proposed write.
QString proposalNote(const widgets::RevertRequest &r, const core::RevertPlan &plan)
{
    QString note = r.changeOnly ? ObjectEditor::tr("Undoing the change of resourceVersion %1: %n field(s) put back.",
                                                   nullptr, int(plan.changes.size()))
                                      .arg(r.resourceVersion)
                                : ObjectEditor::tr("Reverting to resourceVersion %1: %n field(s) put back.", nullptr,
                                                   int(plan.changes.size()))
                                      .arg(r.resourceVersion);
    QStringList changes; // what the write does to the live object, the first few
    for (std::size_t i = 0; i < plan.changes.size() && i < 6; ++i) {
        const auto &c = plan.changes[i];
        const auto shown = [](const std::optional<core::Json> &v) {
            return v ? core::visibleText(QString::fromStdString(core::safeDump(*v)), false).left(60)
                     : ObjectEditor::tr("(absent)");
        };
        changes << core::visibleText(q(c.path)) + QStringLiteral(": ") + shown(c.live) + QStringLiteral(" → ")
                       + shown(c.restored);
    }
    if (plan.changes.size() > 6)
        changes << ObjectEditor::tr("and %n more", nullptr, int(plan.changes.size() - 6));
    note += u' ' + changes.join(QStringLiteral("; ")) + u'.';
    note += u' '
          + ObjectEditor::tr("JSON Patch tests each value it replaces: if someone changes one of them first, "
                             "nothing is written and the three-way view shows what changed. Nothing was sent.");
    if (plan.otherIncarnation)
        note += u' '
              + ObjectEditor::tr("The version belongs to an earlier object of this name: its fields go onto "
                                 "the object that exists now.");
    if (!plan.skipped.empty()) {
        QStringList paths;
        for (const auto &s : plan.skipped)
            paths << core::visibleText(q(s.path)) + QStringLiteral(" (") + q(s.reason) + u')';
        note += u' ' + ObjectEditor::tr("Left alone: %1.").arg(paths.join(QStringLiteral(", ")));
    }
    return note;
}

// Why an undo is refused: each field changed again since, its value now and who owns it now.
QString changedSinceText(const widgets::RevertRequest &r, const core::StaleCheck &check)
{
    QStringList fields;
    for (const auto &f : check.stale) {
        QStringList owners;
        for (const auto &o : f.owners)
            owners << core::visibleText(q(o.manager));
        fields << core::visibleText(q(f.path)) + QStringLiteral(" (")
                      + (f.now ? core::visibleText(q(core::safeDump(*f.now))).left(60) : ObjectEditor::tr("absent"))
                      + (owners.isEmpty() ? QString() : QStringLiteral(", ") + owners.join(QStringLiteral(", ")))
                      + u')';
    }
    for (const auto &h : check.hiddenValues)
        fields << core::visibleText(q(h)) + QStringLiteral(" (hidden)");
    return ObjectEditor::tr("cannot undo the change of resourceVersion %1: someone changed what it changed "
                            "since, and undoing it would throw that away: %2. Revert to a version instead, "
                            "or edit the fields yourself.")
        .arg(r.resourceVersion, fields.join(QStringLiteral("; ")));
}

} // namespace

void ObjectEditor::proposeRevert(const widgets::RevertRequest &request)
{
    if (!m_window)
        return;
    if (m_name.empty()) { // still reading the object: proposed once it is open
        if (!m_pendingRevert)
            connect(
                m_window, &widgets::EditorWindow::loaded, this,
                [this] {
                    if (auto pending = std::exchange(m_pendingRevert, std::nullopt))
                        proposeRevert(*pending);
                },
                Qt::SingleShotConnection);
        m_pendingRevert = request;
        return;
    }
    const int gen = ++m_revertGeneration;
    // Planning decodes two versions and the live object: a worker's job, never the window's.
    auto *watcher = new QFutureWatcher<core::Result<Proposal>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, request, gen] {
        watcher->deleteLater();
        auto proposal = core::takeResult(watcher->future(), "the revert plan");
        if (gen != m_revertGeneration || !m_window)
            return;
        if (!proposal) {
            m_window->showFailure(tr("cannot plan the revert: %1").arg(q(proposal.error().describe())));
            return;
        }
        if (!proposal->plan.hiddenValues.empty()) {
            m_window->showFailure(tr("the recorded version keeps this Secret's values only as hashes (%1): they "
                                     "cannot be written back.")
                                      .arg(q(proposal->plan.hiddenValues.front())));
            return;
        }
        if (proposal->changedSince.refuses()) {
            m_window->showFailure(changedSinceText(request, proposal->changedSince));
            return;
        }
        if (proposal->plan.nothingToDo()) {
            m_window->proposeEdit(QString(), widgets::WriteMode::JsonPatch,
                                  tr("Nothing to revert: the live object already has the fields of resourceVersion %1.")
                                      .arg(request.resourceVersion));
            return;
        }
        m_window->proposeEdit(proposal->yaml, widgets::WriteMode::JsonPatch, proposalNote(request, proposal->plan));
    });
    watcher->setFuture(QtConcurrent::run([request, live = m_session.live(), noStatus = m_session.withoutStatus()] {
        return planFor(request, live, noStatus);
    }));
}

} // namespace fieldscope::app
