#include "widgets/contextswitcher.h"

#include "widgets/icons.h"
#include "widgets/plaintext.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace fieldscope::widgets {

ContextSwitcher::ContextSwitcher(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("contextSwitcher"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    auto *label = new QLabel(tr("Context:"), this);
    m_combo = new QComboBox(this);
    m_combo->setObjectName(QStringLiteral("contextCombo"));
    m_combo->setMinimumContentsLength(40);
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_combo->setToolTip(tr("Contexts of your kubeconfig. Choosing one opens it in a new tab."));
    m_combo->setPlaceholderText(tr("Reading kubeconfig…"));
    label->setBuddy(m_combo);
    m_open = new QToolButton(this);
    m_open->setObjectName(QStringLiteral("openContextButton"));
    m_open->setIcon(icon(Icon::OpenContext));
    m_open->setText(tr("Open"));
    m_open->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_open->setToolTip(tr("Open the chosen context (another tab if it is not open yet)"));
    layout->addWidget(label);
    layout->addWidget(m_combo, 1);
    layout->addWidget(m_open);
    connect(m_combo, &QComboBox::activated, this, [this](int i) {
        if (!m_quiet && i >= 0 && i < m_contexts.size())
            Q_EMIT openRequested(m_contexts[i].name);
    });
    connect(m_open, &QToolButton::clicked, this, [this] {
        const int i = m_combo->currentIndex();
        if (i >= 0 && i < m_contexts.size())
            Q_EMIT openRequested(m_contexts[i].name);
    });
}

void ContextSwitcher::setContexts(const QList<ContextEntry> &contexts)
{
    m_contexts = contexts;
    // The kubeconfig's current context first, the rest in file order.
    std::stable_partition(m_contexts.begin(), m_contexts.end(), [](const ContextEntry &e) { return e.isCurrent; });
    rebuild();
}

void ContextSwitcher::setState(const QString &context, const QString &state)
{
    m_states[context] = state;
    for (int i = 0; i < m_contexts.size(); ++i)
        if (m_contexts[i].name == context)
            updateItem(i);
}

void ContextSwitcher::setCurrentContext(const QString &context)
{
    m_wanted = context;
    selectWanted();
}

QString ContextSwitcher::currentContext() const
{
    const int i = m_combo->currentIndex();
    return i >= 0 && i < m_contexts.size() ? m_contexts[i].name : QString();
}

void ContextSwitcher::rebuild()
{
    m_contexts.removeIf([](const ContextEntry &e) { return !e.listed; });
    m_quiet = true;
    m_combo->clear();
    for (int i = 0; i < m_contexts.size(); ++i) {
        m_combo->addItem(QString());
        updateItem(i);
    }
    m_quiet = false;
    selectWanted();
}

// Selects the wanted context. Opening a context and reading the list race (both off the GUI
// thread); whichever finishes last, the open context is the one shown.
void ContextSwitcher::selectWanted()
{
    int at = -1;
    for (int i = 0; i < m_contexts.size() && at < 0; ++i)
        if (m_wanted.isEmpty() ? m_contexts[i].isCurrent : m_contexts[i].name == m_wanted)
            at = i;
    if (at < 0 && !m_wanted.isEmpty()) {
        ContextEntry e;
        e.name = m_wanted;
        e.listed = false;
        m_contexts.push_back(e);
        m_quiet = true;
        m_combo->addItem(QString());
        m_quiet = false;
        at = int(m_contexts.size() - 1);
        updateItem(at);
    }
    m_quiet = true;
    m_combo->setCurrentIndex(at);
    m_quiet = false;
}

QStringList ContextSwitcher::contextNames() const
{
    QStringList out;
    for (const auto &c : m_contexts)
        if (c.listed)
            out << c.name;
    return out;
}

void ContextSwitcher::updateItem(int i)
{
    const ContextEntry &c = m_contexts[i];
    const QString state = m_states.value(c.name);
    QString text = c.name;
    if (c.isCurrent)
        text += tr(" (current)");
    if (c.listed)
        text += QStringLiteral("  —  ") + (c.server.isEmpty() ? tr("no cluster") : c.server);
    if (!state.isEmpty())
        text += QStringLiteral("  ·  ") + state;
    m_combo->setItemText(i, visibleText(text));
    // The combo's list shows item tooltips without a delegate of ours: a kubeconfig namespace is
    // made plain here.
    m_combo->setItemData(
        i,
        plainToolTip(c.listed
                         ? tr("Namespace %1").arg(c.namespace_.isEmpty() ? QStringLiteral("default") : c.namespace_)
                         : tr("Open; not among the contexts read from the kubeconfig")),
        Qt::ToolTipRole);
    m_combo->setItemIcon(i, state.isEmpty() ? QIcon() : icon(stateIconFor(state)));
}

// The connection states ClusterView reports: "connected · v1.20.2", "failed", or what it is
// doing ("Connecting…", "Discovering resource types…").
Icon ContextSwitcher::stateIconFor(const QString &state)
{
    if (state.startsWith(tr("connected")))
        return Icon::StateConnected;
    if (state.startsWith(tr("failed")))
        return Icon::StateFailed;
    return Icon::StateBusy;
}

} // namespace fieldscope::widgets
