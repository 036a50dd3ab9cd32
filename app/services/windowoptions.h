#pragma once
// The window's command-line options, one definition for the window that reads them
// (app/gui/guiapp.cpp), the help text and the router that must never take an option's value
// for a subcommand (app/cli/). No QApplication needed: --help prints without a display.
#include <QCommandLineOption>
#include <QList>
#include <QStringList>

class QCommandLineParser;

namespace fieldscope::app {

QList<QCommandLineOption> windowOptions();
// The description, --help and windowOptions(); `more` is appended to the description (the
// subcommands, for the help text).
void addWindowOptions(QCommandLineParser &p, const QString &more = {});
// The window's options that take a value ("--screenshot-timeout", ...), as typed.
QStringList guiOptionsWithValues();

} // namespace fieldscope::app
