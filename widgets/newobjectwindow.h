#pragma once
// NewObjectWindow: File → New Object. A YAML buffer (one object, a `---` stream or a List, as
// pasted from anywhere), Dry run and Create. Create means create: an object that exists already
// is reported, never overwritten. A view: the composition root sends and reports back, one line
// per object. The buffer is never cleared by a failure.
#include <QWidget>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace fieldscope::widgets {

class YamlView;

class NewObjectWindow : public QWidget
{
    Q_OBJECT
public:
    explicit NewObjectWindow(const QString &context, QWidget *parent = nullptr);

    QString text() const;
    void setText(const QString &yaml);
    void setBusy(bool busy);
    // One line per object ("ConfigMap demo/a: created"), and whether everything went through.
    void showResults(const QStringList &lines, bool allCreated);
    QString resultsText() const;

Q_SIGNALS:
    void createRequested(const QString &yaml, bool dryRun);

private:
    YamlView *m_buffer;
    QPushButton *m_dryRun;
    QPushButton *m_create;
    QLabel *m_status;
    QTextBrowser *m_results;
};

} // namespace fieldscope::widgets
