#include "widgets/startclassdialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace fieldscope::widgets {

StartClassDialog::StartClassDialog(const QString &defaultOutDir, QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("startClassDialog"));
    setWindowTitle(tr("Start a Class"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Every student on the roster gets a client certificate of their own, a namespace of "
                                "their own and write access to the namespace \"class\" of this sandbox, and a "
                                "kubeconfig in the folder below. Writes are named in the Class view as they "
                                "happen."),
                             this);
    intro->setTextFormat(Qt::PlainText);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *form = new QFormLayout;
    m_roster = new QLineEdit(this);
    m_roster->setObjectName(QStringLiteral("classRoster"));
    m_roster->setPlaceholderText(tr("a text file, one student name a line"));
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Roster"), m_roster->text(),
                                                       tr("Rosters (*.txt *.roster);;All files (*)"));
        if (!f.isEmpty())
            m_roster->setText(f);
    });
    auto *rosterRow = new QHBoxLayout;
    rosterRow->addWidget(m_roster, 1);
    rosterRow->addWidget(browse);
    form->addRow(tr("Roster:"), rosterRow);
    m_hours = new QSpinBox(this);
    m_hours->setObjectName(QStringLiteral("classExpires"));
    m_hours->setRange(1, 72);
    m_hours->setValue(8);
    m_hours->setSuffix(tr(" hours"));
    form->addRow(tr("Identities expire after:"), m_hours);
    m_out = new QLineEdit(defaultOutDir, this);
    m_out->setObjectName(QStringLiteral("classOutDir"));
    form->addRow(tr("Kubeconfigs go to:"), m_out);
    m_listen = new QLineEdit(this);
    m_listen->setObjectName(QStringLiteral("classListen"));
    m_listen->setPlaceholderText(tr("empty: this machine only"));
    form->addRow(tr("Listen address:"), m_listen);
    layout->addLayout(form);
    auto *warn = new QLabel(tr("An address such as 192.168.1.20 makes the sandbox's API server reachable from the "
                               "room's network while the class runs; the window shows it until you stop the class."),
                            this);
    warn->setTextFormat(Qt::PlainText);
    warn->setWordWrap(true);
    layout->addWidget(warn);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Start Class"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    auto okWhenReady = [this, buttons] {
        buttons->button(QDialogButtonBox::Ok)->setEnabled(!rosterFile().isEmpty() && !outDir().isEmpty());
    };
    connect(m_roster, &QLineEdit::textChanged, this, okWhenReady);
    connect(m_out, &QLineEdit::textChanged, this, okWhenReady);
    okWhenReady();
    resize(560, sizeHint().height());
}

QString StartClassDialog::rosterFile() const
{
    return m_roster->text().trimmed();
}

int StartClassDialog::expiresHours() const
{
    return m_hours->value();
}

QString StartClassDialog::listen() const
{
    return m_listen->text().trimmed();
}

QString StartClassDialog::outDir() const
{
    return m_out->text().trimmed();
}

} // namespace fieldscope::widgets
