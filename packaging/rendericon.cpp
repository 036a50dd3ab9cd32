// Build-time tool: renders the application's SVG icon as PNG at the hicolor sizes the package
// installs (small sizes look sharper rendered from the vector than scaled by a desktop).
//   rendericon ICON.svg OUTDIR SIZE...   ->  OUTDIR/SIZExSIZE/apps/NAME.png
#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char **argv)
{
    QGuiApplication app(argc, argv);
    const QStringList args = QGuiApplication::arguments();
    if (args.size() < 5) {
        std::fputs("usage: rendericon ICON.svg OUTDIR NAME SIZE...\n", stderr);
        return 2;
    }
    QSvgRenderer svg(args[1]);
    if (!svg.isValid()) {
        std::fprintf(stderr, "rendericon: cannot read %s\n", qPrintable(args[1]));
        return 1;
    }
    for (int i = 4; i < args.size(); ++i) {
        const int size = args[i].toInt();
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter);
        painter.end();
        const QString dir = QStringLiteral("%1/%2x%2/apps").arg(args[2]).arg(size);
        QDir().mkpath(dir);
        if (!image.save(QStringLiteral("%1/%2.png").arg(dir, args[3]))) {
            std::fprintf(stderr, "rendericon: cannot write %s\n", qPrintable(dir));
            return 1;
        }
    }
    return 0;
}
