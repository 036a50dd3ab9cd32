#include "widgets/contextswitcher.h"

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
    label->setBuddy(m_combo);
    m_open = new QToolButton(this);
    m_open->setObjectName(QStringLiteral("openContextButton"));
    m_open->setIcon(style()->standardIcon(QStyle::SP_FileDialogNewFolder));
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
    const QString current = m_combo->currentIndex() >= 0 && m_combo->currentIndex() < m_contexts.size()
                              ? m_contexts[m_combo->currentIndex()].name : QString();
    m_contexts = contexts;
    // The kubeconfig's current context first, the rest in file order.
    std::stable_partition(m_contexts.begin(), m_contexts.end(), [](const ContextEntry &e) { return e.isCurrent; });
    m_quiet = true;
    m_combo->clear();
    for (int i = 0; i < m_contexts.size(); ++i) {
        m_combo->addItem(QString());
        updateItem(i);
    }
    m_quiet = false;
    setCurrentContext(current);
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
    for (int i = 0; i < m_contexts.size(); ++i)
        if (m_contexts[i].name == context) {
            m_quiet = true;
            m_combo->setCurrentIndex(i);
            m_quiet = false;
        }
}

QStringList ContextSwitcher::contextNames() const
{
    QStringList out;
    for (const auto &c : m_contexts)
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
    text += QStringLiteral("  —  ") + (c.server.isEmpty() ? tr("no cluster") : c.server);
    if (!state.isEmpty())
        text += QStringLiteral("  ·  ") + state;
    m_combo->setItemText(i, text);
    m_combo->setItemData(i, tr("Namespace %1").arg(c.namespace_.isEmpty() ? QStringLiteral("default") : c.namespace_), Qt::ToolTipRole);
    const bool failed = state.startsWith(tr("failed"));
    m_combo->setItemIcon(i, state.isEmpty() ? QIcon()
                                            : style()->standardIcon(failed ? QStyle::SP_MessageBoxWarning : QStyle::SP_DialogApplyButton));
}

} // namespace fieldscope::widgets
