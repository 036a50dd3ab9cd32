#include "models/plaintooltip.h"

#include "core/base/visibletext.h"

#include <QTextDocument>

namespace fieldscope::models {

QString plainToolTip(const QString &untrusted)
{
    // Cut before escaping (bounded work) and after (an escape makes one character six).
    QString visible = core::visibleText(untrusted.left(kMaxToolTipChars + 1), true);
    if (visible.size() > kMaxToolTipChars)
        visible = visible.left(kMaxToolTipChars) + QChar(0x2026);
    if (!Qt::mightBeRichText(visible))
        return visible;
    // Escaped inside a tag Qt always reads as rich text: the escapes render as the characters.
    return QStringLiteral("<p style=\"white-space:pre-wrap\">%1</p>").arg(visible.toHtmlEscaped());
}

} // namespace fieldscope::models
