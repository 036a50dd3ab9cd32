#include "widgets/commandpalette.h"

#include "widgets/plaintext.h"

#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace fieldscope::widgets {

namespace {
constexpr int kMaxShown = 200;
}

CommandPalette::CommandPalette(QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("commandPalette"));
    setWindowTitle(tr("Go to"));
    resize(560, 420);
    auto *layout = new QVBoxLayout(this);
    m_input = new QLineEdit(this);
    m_input->setObjectName(QStringLiteral("paletteInput"));
    m_input->setPlaceholderText(tr("Type a kind or an object name; Enter opens it"));
    m_list = new QListWidget(this);
    showPlainText(m_list); // kinds and object names
    m_list->setObjectName(QStringLiteral("paletteList"));
    m_list->setUniformItemSizes(true);
    layout->addWidget(m_input);
    layout->addWidget(m_list, 1);
    auto *hint = new QLabel(tr("↑ ↓ choose · Enter open · Esc close"), this);
    hint->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(hint);
    connect(m_input, &QLineEdit::textChanged, this, &CommandPalette::refresh);
    connect(m_list, &QListWidget::itemActivated, this, &CommandPalette::choose);
    m_input->installEventFilter(this);
}

void CommandPalette::setEntries(std::vector<Entry> entries)
{
    m_entries = std::move(entries);
    refresh();
}

void CommandPalette::refresh()
{
    const QString needle = m_input->text().trimmed();
    m_list->clear();
    int shown = 0;
    for (std::size_t i = 0; i < m_entries.size() && shown < kMaxShown; ++i) {
        const Entry &e = m_entries[i];
        if (!needle.isEmpty() && !e.text.contains(needle, Qt::CaseInsensitive)
            && !e.detail.contains(needle, Qt::CaseInsensitive))
            continue;
        auto *item = new QListWidgetItem((e.isKind ? tr("Kind: ") : QString()) + e.text
                                             + (e.detail.isEmpty() ? QString() : QStringLiteral("   ") + e.detail),
                                         m_list);
        item->setData(Qt::UserRole, int(i));
        ++shown;
    }
    if (m_list->count() > 0)
        m_list->setCurrentRow(0);
}

void CommandPalette::choose()
{
    const QListWidgetItem *item = m_list->currentItem();
    if (!item)
        return;
    const Entry &e = m_entries[std::size_t(item->data(Qt::UserRole).toInt())];
    accept();
    if (e.isKind)
        Q_EMIT kindChosen(e.key);
    else
        Q_EMIT objectChosen(e.key);
}

bool CommandPalette::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_input && event->type() == QEvent::KeyPress) {
        auto *k = static_cast<QKeyEvent *>(event);
        const int row = m_list->currentRow();
        if (k->key() == Qt::Key_Down || k->key() == Qt::Key_Up) {
            const int next = std::clamp(row + (k->key() == Qt::Key_Down ? 1 : -1), 0, std::max(0, m_list->count() - 1));
            m_list->setCurrentRow(next);
            return true;
        }
        if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
            choose();
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

} // namespace fieldscope::widgets
