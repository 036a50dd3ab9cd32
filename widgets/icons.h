#pragma once
// The app's icons: hand-written SVGs under resources/icons (compiled in with qt_add_resources).
// Their "currentColor" is replaced at render time by the application palette's text colour for
// the icon's mode (Selected: HighlightedText, Disabled: the disabled text colour), so the same
// icon reads on a light and a dark palette and follows a palette change; accent colours are
// literal. Rendered at the requested device pixel size, so 1x and 2x are both sharp.
// GUI thread only (QIcon and QGuiApplication::palette()).
#include <QIcon>

namespace fieldscope::widgets {

enum class Icon {
    App,
    Kind,
    Namespace,
    ApiGroup,
    Refresh,
    History,
    Ownership,
    Events,
    Summary,
    Yaml,
    Favourite,
    OpenContext,
    StateConnected,
    StateLive,
    StateBusy,
    StateWaiting,
    StateFailed,
    StateIdle,
};

QIcon icon(Icon which);
// The resource path, e.g. ":/icons/kind.svg" (tests check every icon exists and renders).
QString iconPath(Icon which);
QList<Icon> allIcons();

} // namespace fieldscope::widgets
