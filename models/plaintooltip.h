#pragma once
// A tooltip text that shows exactly the characters of an untrusted string (server, kubeconfig,
// file, lesson). Qt renders every tooltip as rich text when Qt::mightBeRichText() says so, and
// some tooltips never pass through a delegate (a QHeaderView's section tooltip shows
// headerData(Qt::ToolTipRole) as it is): models return such tooltips through this.
// widgets::plainToolTip is the same function for widgets.
#include <QString>

namespace fieldscope::models {

// At most this many characters of an untrusted string reach a tooltip (then "…"): a server may
// send a megabyte of column description, and a tooltip is laid out on the GUI thread.
inline constexpr int kMaxToolTipChars = 4096;

// Control and bidi characters as visible escapes (newlines kept); rich-looking text escaped and
// wrapped so Qt renders it literally; anything else unchanged. Cut at kMaxToolTipChars.
QString plainToolTip(const QString &untrusted);

} // namespace fieldscope::models
