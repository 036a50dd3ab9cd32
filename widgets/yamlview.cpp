#include "widgets/yamlview.h"

#include "models/managercolors.h"
#include "models/objectdetail.h"
#include "widgets/palette.h"

#include <QEvent>
#include <QFontDatabase>

#include <iterator>

namespace fieldscope::widgets {

namespace {
constexpr int kGutterMargin = 1;
constexpr int kFirstGutterStyle = 64; // above the lexer's styles
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
        const int styles[] = {QsciLexerYAML::Identifier, QsciLexerYAML::Default, QsciLexerYAML::Comment,
                              QsciLexerYAML::Number,     QsciLexerYAML::Keyword, QsciLexerYAML::Operator};
        // QsciLexerYAML's own colours are for white paper; a dark palette gets lighter ones, and
        // a palette that turns light again gets the lexer's back.
        const QColor dark[] = {QColor(0x8a, 0xb4, 0xf8), QColor(0xa5, 0xd6, 0xa7), QColor(0x9e, 0x9e, 0x9e),
                               QColor(0xff, 0xcc, 0x80), QColor(0xce, 0x93, 0xd8), QColor(0xbd, 0xbd, 0xbd)};
        for (std::size_t i = 0; i < std::size(styles); ++i)
            l->setColor(isDarkPalette(p) ? dark[i] : l->defaultColor(styles[i]), styles[i]);
        if (!isDarkPalette(p)) // Default's own colour is black: the palette's text colour instead
            l->setColor(p.color(QPalette::Text), QsciLexerYAML::Default);
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
        const auto tone = isDarkPalette(p) ? models::PaletteTone::Dark : models::PaletteTone::Light;
        const QFont small = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        std::vector<QsciStyle> styles;
        styles.reserve(std::size_t(m_managers.size()));
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
