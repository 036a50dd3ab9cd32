// TextCellDelegate (the object table's cell painter) against the stock QStyledItemDelegate it
// replaces: the same text in the same place (left, right aligned, elided), the selection's text
// colour, laid-out text reused while a cell's text and width stay, and cells it does not handle
// (an icon, a struck-out font) painted by the stock path.
#include "widgets/objecttablepage.h"
#include "widgets/textcelldelegate.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QStandardItemModel>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTest>

using fieldscope::widgets::TextCellDelegate;

namespace {

struct Ink {
    QRect box; // of every pixel that is not the background
    int pixels = 0;
    QColor darkest;
};

Ink inkOf(const QImage &img, QRgb background)
{
    Ink ink;
    int darkest = 256 * 3;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QRgb c = img.pixel(x, y);
            if (c == background)
                continue;
            ink.box |= QRect(x, y, 1, 1);
            ++ink.pixels;
            const int sum = qRed(c) + qGreen(c) + qBlue(c);
            if (sum < darkest) {
                darkest = sum;
                ink.darkest = QColor(c);
            }
        }
    return ink;
}

class TestTextCellDelegate : public QObject
{
    Q_OBJECT
    QStandardItemModel m_model{1, 1};
    QTableView m_view; // the widget the options come from, as in the object table

    QImage paint(QAbstractItemDelegate &delegate, const QString &text, QSize size, Qt::Alignment align,
                 QStyle::State extra = {})
    {
        m_model.setData(m_model.index(0, 0), text);
        m_model.setData(m_model.index(0, 0), QVariant::fromValue(align), Qt::TextAlignmentRole);
        QStyleOptionViewItem opt;
        opt.initFrom(&m_view);
        opt.widget = &m_view;
        opt.rect = QRect(QPoint(0, 0), size);
        opt.state |= extra;
        opt.state &= ~QStyle::State_HasFocus;
        opt.textElideMode = Qt::ElideRight;
        opt.showDecorationSelected = true; // as QTableView's options say
        QImage img(size, QImage::Format_ARGB32);
        img.fill(m_view.palette().color(QPalette::Base));
        QPainter p(&img);
        delegate.paint(&p, opt, m_model.index(0, 0));
        return img;
    }

    void expectSameText(const QString &text, QSize size, Qt::Alignment align)
    {
        QStyledItemDelegate stock;
        TextCellDelegate fast;
        const QRgb base = m_view.palette().color(QPalette::Base).rgb();
        const Ink want = inkOf(paint(stock, text, size, align), base);
        const Ink got = inkOf(paint(fast, text, size, align), base);
        QVERIFY2(want.pixels > 0, "the stock delegate painted nothing");
        const auto near = [](int a, int b) { return std::abs(a - b) <= 1; };
        QVERIFY2(near(got.box.left(), want.box.left()) && near(got.box.right(), want.box.right())
                     && near(got.box.top(), want.box.top()) && near(got.box.bottom(), want.box.bottom()),
                 qPrintable(QStringLiteral("text ink at (%1,%2 %3x%4), stock at (%5,%6 %7x%8)")
                                .arg(got.box.x())
                                .arg(got.box.y())
                                .arg(got.box.width())
                                .arg(got.box.height())
                                .arg(want.box.x())
                                .arg(want.box.y())
                                .arg(want.box.width())
                                .arg(want.box.height())));
        QVERIFY2(std::abs(got.pixels - want.pixels) <= want.pixels / 10,
                 qPrintable(QStringLiteral("%1 inked pixels, stock %2").arg(got.pixels).arg(want.pixels)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_view.setModel(&m_model);
        m_view.resize(400, 200);
    }

    void leftAlignedTextLandsWhereTheStockDelegatePutsIt()
    {
        expectSameText(QStringLiteral("cm-004217"), {160, 24}, Qt::AlignLeft | Qt::AlignVCenter);
    }

    void rightAlignedNumbersLandWhereTheStockDelegatePutsThem()
    {
        expectSameText(QStringLiteral("5001234"), {120, 24}, Qt::AlignRight | Qt::AlignVCenter);
    }

    void textWiderThanItsColumnIsElidedLikeTheStockDelegate()
    {
        const QString longName = QStringLiteral("kubectl-client-side-apply (Update) and then some more words");
        expectSameText(longName, {90, 24}, Qt::AlignLeft | Qt::AlignVCenter);
        TextCellDelegate fast;
        const QRgb base = m_view.palette().color(QPalette::Base).rgb();
        QVERIFY(inkOf(paint(fast, longName, {90, 24}, Qt::AlignLeft | Qt::AlignVCenter), base).box.right() < 90 - 2);
    }

    void selectedCellsUseTheHighlightedTextColour()
    {
        TextCellDelegate fast;
        QPalette pal = m_view.palette();
        pal.setColor(QPalette::Highlight, QColor(0x20, 0x40, 0x90));
        pal.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0x00));
        m_view.setPalette(pal);
        const QImage img = paint(fast, QStringLiteral("WWWW"), {100, 24}, Qt::AlignLeft | Qt::AlignVCenter,
                                 QStyle::State_Selected | QStyle::State_Active);
        m_view.setPalette(QPalette());
        // Background is the highlight; the brightest ink is the highlighted text's yellow.
        QCOMPARE(QColor(img.pixel(1, 1)), QColor(0x20, 0x40, 0x90));
        int yellowish = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                const QColor c(img.pixel(x, y));
                yellowish += c.red() > 200 && c.green() > 200 && c.blue() < 100;
            }
        QVERIFY2(yellowish > 20, "no text in the highlighted text colour");
    }

    void laidOutTextIsReusedUntilTheTextOrTheWidthChanges()
    {
        TextCellDelegate fast;
        paint(fast, QStringLiteral("web"), {100, 24}, Qt::AlignLeft);
        paint(fast, QStringLiteral("web"), {100, 24}, Qt::AlignLeft);
        QCOMPARE(fast.cachedTexts(), 1);
        paint(fast, QStringLiteral("web"), {140, 24}, Qt::AlignLeft); // column resized
        paint(fast, QStringLiteral("api"), {140, 24}, Qt::AlignLeft);
        QCOMPARE(fast.cachedTexts(), 3);
    }

    void cellsWithAnIconArePaintedByTheStockDelegate()
    {
        TextCellDelegate fast;
        QPixmap red(12, 12);
        red.fill(Qt::red);
        m_model.setData(m_model.index(0, 0), red, Qt::DecorationRole);
        const QImage img = paint(fast, QStringLiteral("with icon"), {140, 24}, Qt::AlignLeft | Qt::AlignVCenter);
        m_model.setData(m_model.index(0, 0), QVariant(), Qt::DecorationRole);
        QCOMPARE(fast.cachedTexts(), 0);
        bool sawRed = false;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < 40; ++x)
                sawRed |= QColor(img.pixel(x, y)) == QColor(Qt::red);
        QVERIFY2(sawRed, "the icon was not painted");
    }

    // Deleted objects of a recorded history are struck through; QStaticText cannot draw that.
    void struckOutTextIsPaintedByTheStockDelegateWithItsLine()
    {
        QFont struck = m_view.font();
        struck.setStrikeOut(true);
        m_model.setData(m_model.index(0, 0), struck, Qt::FontRole);
        TextCellDelegate fast;
        QStyledItemDelegate stock;
        const QRgb base = m_view.palette().color(QPalette::Base).rgb();
        const QString text = QStringLiteral("old");
        const Ink plain = inkOf(paint(stock, text, {100, 24}, Qt::AlignLeft | Qt::AlignVCenter), base);
        const Ink got = inkOf(paint(fast, text, {100, 24}, Qt::AlignLeft | Qt::AlignVCenter), base);
        m_model.setData(m_model.index(0, 0), QVariant(), Qt::FontRole);
        QCOMPARE(fast.cachedTexts(), 0);
        QCOMPARE(got.pixels, plain.pixels); // the same painter as the stock one, line included
        const Ink unstruck = inkOf(paint(stock, text, {100, 24}, Qt::AlignLeft | Qt::AlignVCenter), base);
        QVERIFY2(got.pixels > unstruck.pixels,
                 qPrintable(QStringLiteral("%1 vs %2").arg(got.pixels).arg(unstruck.pixels)));
    }

    void theObjectTableUsesIt()
    {
        QTableView table;
        fieldscope::widgets::setUpObjectTable(&table);
        QVERIFY(qobject_cast<TextCellDelegate *>(table.itemDelegate()));
    }
};

} // namespace

QTEST_MAIN(TestTextCellDelegate)
#include "tst_textcelldelegate.moc"
