#pragma once
// YamlView: read-only YAML of an object with the ownership gutter: left of every line the
// managers that own the field it shows, coloured per manager (models/managercolors.h), so a
// glance tells who wrote what. Follows the light/dark palette. Lives on the GUI thread.
#include "widgets/qsci.h"

namespace fieldscope::models {
struct ObjectDetail;
}

namespace fieldscope::widgets {

class YamlView : public QsciScintilla
{
    Q_OBJECT
public:
    explicit YamlView(QWidget *parent = nullptr);
    void setDetail(const models::ObjectDetail &detail);
    void clearDetail();

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();

    QStringList m_gutter;        // per line
    QVector<int> m_gutterColour; // per line: index into m_managers, -1 none
    QStringList m_managers;
};

} // namespace fieldscope::widgets
