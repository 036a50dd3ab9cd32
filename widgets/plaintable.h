#pragma once
// The look every list-like table of the detail pane shares: whole-row selection, no grid,
// alternating rows, compact row height, left-aligned headers, last column stretched.
class QTableView;
class QWidget;

namespace fieldscope::widgets {

QTableView *plainTable(QWidget *parent, const char *objectName);

} // namespace fieldscope::widgets
