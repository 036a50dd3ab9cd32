#include "widgets/yamlview.h"

#include "models/managercolors.h"
#include "models/objectdetail.h"


#include <QEvent>
#include <QFontDatabase>

namespace fieldscope::widgets {

namespace {
constexpr int kGutterMargin = 1;
constexpr int kFirstGutterStyle = 64; // above the lexer's styles
bool isDark(const QPalette &p)
{
    return p.color(QPalette::Base).lightness() < 128;
}
} // namespace

YamlView::YamlView(QWidget *parent) : QsciScintilla(parent)
{
    setObjectName(QStringLiteral("yamlView"));
    setReadOnly(true);
    setUtf8(true);
    setWrapMode(QsciScintilla::WrapNone);
    setMarginLineNumbers(0, true);
    setMarginType(kGutterMargin, QsciScintilla::TextMarginRightJustified);
    setMarginWidth(kGutterMargin, 0);
    setCaretLineVisible(true);
    auto *lexer = new QsciLexerYAML(this);
    lexer->setDefaultFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    lexer->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLexer(lexer);
    applyPalette();
}

void YamlView::applyPalette()
{
    const QPalette p = palette();
    if (auto *l = lexer()) {
        l->setDefaultPaper(p.color(QPalette::Base));
        l->setPaper(p.color(QPalette::Base));
        l->setDefaultColor(p.color(QPalette::Text));
        if (isDark(p)) { // QsciLexerYAML's colours are for white paper
            l->setColor(QColor(0x8a, 0xb4, 0xf8), QsciLexerYAML::Identifier);
            l->setColor(QColor(0xa5, 0xd6, 0xa7), QsciLexerYAML::Default);
            l->setColor(QColor(0x9e, 0x9e, 0x9e), QsciLexerYAML::Comment);
            l->setColor(QColor(0xff, 0xcc, 0x80), QsciLexerYAML::Number);
            l->setColor(QColor(0xce, 0x93, 0xd8), QsciLexerYAML::Keyword);
        }
    }
    setMarginsBackgroundColor(p.color(QPalette::AlternateBase));
    setMarginsForegroundColor(p.color(QPalette::PlaceholderText));
    setCaretLineBackgroundColor(p.color(QPalette::AlternateBase));
    setCaretForegroundColor(p.color(QPalette::Text));
    setSelectionBackgroundColor(p.color(QPalette::Highlight));
    setSelectionForegroundColor(p.color(QPalette::HighlightedText));
    // Re-apply the gutter in the new tone.
    if (!m_gutter.isEmpty()) {
        clearMarginText();
        const auto tone = isDark(p) ? models::PaletteTone::Dark : models::PaletteTone::Light;
        const QFont small = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        std::vector<QsciStyle> styles;
        for (int i = 0; i < m_managers.size(); ++i)
            styles.emplace_back(kFirstGutterStyle + i, m_managers[i], models::managerColor(m_managers[i], tone),
                                p.color(QPalette::AlternateBase), small);
        for (int line = 0; line < m_gutter.size(); ++line) {
            const int c = m_gutterColour[line];
            if (!m_gutter[line].isEmpty() && c >= 0)
                setMarginText(line, m_gutter[line], styles[std::size_t(c)]);
        }
    }
}

void YamlView::setDetail(const models::ObjectDetail &d)
{
    const int firstLine = firstVisibleLine();
    setText(d.yaml);
    m_managers = d.managerNames;
    m_managers.removeDuplicates();
    m_gutter.clear();
    m_gutterColour.clear();
    int widest = 0;
    for (const auto &owners : d.lineOwners) {
        QStringList names;
        for (int e : owners)
            if (e < d.managerLabels.size() && !names.contains(d.managerLabels[e]))
                names << d.managerLabels[e];
        const QString text = names.isEmpty() ? QString() : names.join(QStringLiteral(", ")) + u' ';
        m_gutter << text;
        m_gutterColour << (owners.isEmpty() ? -1 : int(m_managers.indexOf(d.managerNames.value(owners.first()))));
        widest = std::max(widest, int(text.size()));
    }
    widest = std::min(widest, 48);
    setMarginWidth(kGutterMargin, widest ? QString(widest + 1, u'm') : QString());
    setMarginWidth(0, QString(QString::number(lines()).size() + 1, u'9'));
    applyPalette();
    setFirstVisibleLine(firstLine); // an update of the same object keeps the reading position
}

void YamlView::clearDetail()
{
    m_gutter.clear();
    clearMarginText();
    clear();
}

void YamlView::changeEvent(QEvent *event)
{
    QsciScintilla::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

} // namespace fieldscope::widgets
