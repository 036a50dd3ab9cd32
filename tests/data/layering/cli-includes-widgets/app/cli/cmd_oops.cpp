// A subcommand that asks with a message box: the command line must run where no display is.
#include <QtWidgets/QMessageBox>

int runOops()
{
    return 0;
}
