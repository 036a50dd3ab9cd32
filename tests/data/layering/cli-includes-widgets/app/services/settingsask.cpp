// A service that reaches for a dialog of widgets/ (the settings service must not).
#include "widgets/settingsdialog.h"

int askSettings()
{
    return 0;
}
